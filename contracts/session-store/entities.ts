import { z } from 'zod';
import { messageSchema } from './messages';

/** Opaque writer-supplied correlation (e.g. `{turn}`), echoed on events. */
export const originSchema = z.record(z.string(), z.unknown());

/** Coarse lifecycle status rendered by consumers. */
export const sessionStatusSchema = z.enum(['idle', 'working', 'done', 'error']);

/** App-defined metadata: the tenancy hook (e.g. `{owner: "alice"}`). */
export const metadataSchema = z.record(z.string(), z.unknown());

/** A session's metadata record. */
export const sessionMetaSchema = z.object({
  session_id: z.string(),
  title: z.string(),
  description: z.string(),
  status: sessionStatusSchema,
  status_reason: z.string().optional(),
  metadata: metadataSchema.optional(),
  forked_from: z.string().optional(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
  message_count: z.number().int().nonnegative(),
});
export type SessionMeta = z.infer<typeof sessionMetaSchema>;

const entryBase = {
  id: z.string(),
  parent_id: z.string().nullable(),
  timestamp: z.number().int(),
  revision: z.number().int().nonnegative(),
  origin: originSchema.optional(),
};

/** One stored item of a session's tree, discriminated by `kind`. */
export const sessionEntrySchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('message'), ...entryBase, message: messageSchema }),
  z.object({ kind: z.literal('custom'), ...entryBase, custom_type: z.string(), data: z.unknown().optional() }),
]);
export type SessionEntry = z.infer<typeof sessionEntrySchema>;
