import { z } from 'zod';
import { sessionSnapshotSchema, type SessionSnapshot } from './session-workflow';

/**
 * What readers need of a running session, kept by its workflow in its Temporal memo under
 * `SESSION_VIEW_MEMO_KEY` whenever it changes (workflows/session/session-view-memo.ts). A read is then
 * one `DescribeWorkflowExecution` (or, for a list, one visibility query) answered by the Temporal
 * server alone: no worker has to run a query, so a busy or restarting worker does not slow or fail
 * reads. The memo is written in the same workflow task as the change, so a command's answer (an
 * update completed in that task) is never newer than what a read after it returns.
 *
 * It is the query's snapshot (`sessionState`) without the queued prompts' texts and images: the memo is
 * stored with every change in the workflow's history and the visibility store, so it stays small.
 */
export const SESSION_VIEW_MEMO_KEY = 'strand_session_view';

const liveQueueEntrySchema = z.object({ turn_number: z.number().int().positive(), request_id: z.string().optional() });

export const sessionLiveViewSchema = sessionSnapshotSchema.omit({ queue: true }).extend({ queue: z.array(liveQueueEntrySchema) });
export type SessionLiveView = z.infer<typeof sessionLiveViewSchema>;

/** The view of a snapshot (the query's answer, where a run keeps no memo yet). */
export function liveViewOf(snapshot: SessionSnapshot): SessionLiveView {
  return { ...snapshot, queue: snapshot.queue.map((q) => ({ turn_number: q.turn_number, ...(q.request_id ? { request_id: q.request_id } : {}) })) };
}
