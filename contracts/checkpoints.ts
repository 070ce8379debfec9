import { defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import { ErrorCode, StrandError } from './errors';

/**
 * File checkpoints (docs/undo.md): before a tool changes the workspace, the prior state of what it
 * changes is kept outside the project, keyed by session and the tool call's entry id
 * (`t3:s0:tool:<call>`). Reverting puts files back as they were before a turn or a tool call.
 */

/** A file's state at one moment: missing, a regular file (content by sha256), a symlink, or not kept. */
const fileStateSchema = z.discriminatedUnion('state', [
  z.object({ state: z.literal('absent') }),
  z.object({ state: z.literal('file'), sha256: z.string().regex(/^[0-9a-f]{64}$/), size: z.number().int().nonnegative(), mode: z.number().int().nonnegative() }),
  z.object({ state: z.literal('symlink'), target: z.string() }),
  /** Beyond the snapshot bounds (too big, too many files): seen changing, its content not kept. */
  z.object({ state: z.literal('unsaved'), size: z.number().int().nonnegative(), reason: z.string() }),
]);
export type FileState = z.infer<typeof fileStateSchema>;

export const checkpointToolSchema = z.enum(['write_file', 'edit_file', 'delete_file', 'shell_exec']);
export type CheckpointTool = z.infer<typeof checkpointToolSchema>;

/** One file a tool call changed: before and after the call. */
const checkpointFileSchema = z.object({ path: z.string(), before: fileStateSchema, after: fileStateSchema });
export type CheckpointFile = z.infer<typeof checkpointFileSchema>;

/** A finished tool call's checkpoint, as stored on the worker. */
export const checkpointRecordSchema = z.object({
  entry_id: z.string(),
  turn_id: z.string(),
  tool: checkpointToolSchema,
  /** When the before-state was taken (ms since the epoch): the order of checkpoints. */
  time: z.number().int(),
  files: z.array(checkpointFileSchema),
  /** What the snapshot could not cover (shell_exec beyond its bounds), said to the model too. */
  notes: z.array(z.string()).optional(),
  /** Set while the call is undone by a revert (a redo clears it). */
  reverted: z.boolean().optional(),
});
export type CheckpointRecord = z.infer<typeof checkpointRecordSchema>;

/** One row of `GET /api/sessions/{id}/checkpoints`, oldest first. */
const checkpointSummarySchema = z.object({
  entry_id: z.string(),
  turn_id: z.string(),
  tool: checkpointToolSchema,
  paths: z.array(z.string()),
  time: z.number().int(),
  reverted: z.boolean(),
  notes: z.array(z.string()).optional(),
});
export type CheckpointSummary = z.infer<typeof checkpointSummarySchema>;

/** `POST /api/sessions/{id}/revert`: exactly one of turn_id, entry_id or redo. */
export const revertRequestSchema = z
  .strictObject({
    turn_id: z.string().min(1).optional(),
    entry_id: z.string().min(1).optional(),
    redo: z.literal(true).optional(),
    force: z.boolean().optional(),
  })
  .refine((r) => [r.turn_id, r.entry_id, r.redo].filter((v) => v !== undefined).length === 1, { message: 'give exactly one of turn_id, entry_id or redo: true' });
export type RevertRequest = z.infer<typeof revertRequestSchema>;

/** What a revert or a redo did (or, with `conflicts`, refused to do). */
const revertResultSchema = z.object({
  /** Files put back (revert) or re-applied (redo), with what each became. */
  files: z.array(z.object({ path: z.string(), operation: z.enum(['write', 'delete']) })),
  /** Checkpoints (tool calls) undone or redone. */
  entry_ids: z.array(z.string()),
  /** The session's active leaf afterwards (null: the conversation's root, before any entry). */
  active_leaf: z.string().nullable().optional(),
  /** Files changed since by someone else: nothing was done (unless forced). */
  conflicts: z.array(z.string()).optional(),
  /** Files whose earlier content was not kept (beyond the bounds): left as they are. */
  skipped: z.array(z.string()).optional(),
  /** Nothing to redo / no checkpoint at that point. */
  refused: z.enum(['nothing_to_redo', 'no_checkpoint']).optional(),
});
export type RevertResult = z.infer<typeof revertResultSchema>;

/** The session workflow's checkpoint command: listing runs any time, a revert or redo only when idle. */
export type CheckpointCommand = { op: 'list' } | ({ op: 'revert' } & RevertRequest);
export const checkpointCommandSchema = z.union([z.strictObject({ op: z.literal('list') }), z.object({ op: z.literal('revert') }).passthrough()]);

export type CheckpointCommandResult = { checkpoints: CheckpointSummary[] } | RevertResult;
export const checkpointsUpdate = defineUpdate<CheckpointCommandResult, [CheckpointCommand]>('checkpoints');

/** `GET /api/sessions/{id}/checkpoints`. */
export const checkpointListReplySchema = z.object({ checkpoints: z.array(checkpointSummarySchema) });

/** `POST /api/sessions/{id}/revert` (200): what was done. */
export const revertReplySchema = z.object({
  files: revertResultSchema.shape.files,
  entry_ids: revertResultSchema.shape.entry_ids,
  active_leaf: z.string().nullable().optional(),
  conflicts: z.array(z.string()).optional(),
  skipped: z.array(z.string()).optional(),
});

/** A refused revert or redo as the error every transport shows (nothing was changed). */
export function revertRefusal(result: RevertResult, force: boolean): StrandError | undefined {
  if (result.refused === 'nothing_to_redo') return new StrandError(ErrorCode.NOTHING_TO_REDO, 'there is no revert to redo (none was made, it was redone, or a new prompt since dropped it)');
  if (result.refused === 'no_checkpoint') return new StrandError(ErrorCode.CHECKPOINT_NOT_FOUND, 'no checkpoint (and no turn) at that point');
  if (result.conflicts?.length && !force) {
    return new StrandError(ErrorCode.REVERT_CONFLICT, `changed since by someone else: ${result.conflicts.join(', ')} (send "force": true to overwrite)`, { paths: result.conflicts });
  }
  return undefined;
}
