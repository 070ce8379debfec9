import { z } from 'zod';
import { usageSchema } from './session-store/messages';

/** The custom entry a compaction records (`custom_type: "compaction"`); later contexts are built from it. */
export const COMPACTION_CUSTOM_TYPE = 'compaction';

export const compactionDataSchema = z.object({
  summary: z.string(),
  /** The first entry kept as it is; everything before it is replaced by the summary. */
  first_kept_entry_id: z.string(),
  tokens_before: z.number().int().nonnegative(),
  files_read: z.array(z.string()),
  files_modified: z.array(z.string()),
  reason: z.enum(['manual', 'threshold', 'overflow']),
  instructions: z.string().optional(),
  /** What the summary's model call cost (the session's spending counts it: docs/budgets.md); absent in older records. */
  usage: usageSchema.optional(),
});
export type CompactionData = z.infer<typeof compactionDataSchema>;
