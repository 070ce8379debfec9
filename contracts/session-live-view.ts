import { z } from 'zod';
import { sessionSnapshotSchema, type SessionSnapshot } from './session-workflow';
import { PHASES_THE_SESSION_ACTS_ON } from './turn-protocol';

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

/**
 * What a turn started with `view_in_memo` keeps in its memo (`TURN_VIEW_MEMO_KEY`,
 * contracts/turn-protocol.ts) at each report: its part of the session's view.
 */
export const turnLiveViewSchema = sessionSnapshotSchema.pick({ phase: true, step: true, streaming: true, retry_attempt: true, details: true });
export type TurnLiveView = z.infer<typeof turnLiveViewSchema>;

/**
 * The session's view with its running turn's own part over it (`turn_keeps_view`): the turn's phase,
 * step, streaming flag, retry attempt and details as of its last report. The session's phase wins
 * while it is one the session acts on (an approval, a retry, a budget wait: the turn reported it
 * there, and the session's view carries what goes with it, such as the calls waiting).
 */
export function withTurnView(view: SessionLiveView, turn: TurnLiveView | undefined): SessionLiveView {
  if (!turn || !view.turn_keeps_view || view.active_turn === null || SESSION_OWNED_PHASES.has(view.phase)) return view;
  const { details: _old, ...rest } = view;
  return { ...rest, phase: turn.phase, step: turn.step, streaming: turn.streaming, retry_attempt: turn.retry_attempt, ...(turn.details !== undefined ? { details: turn.details } : {}) };
}

const SESSION_OWNED_PHASES = new Set<string>(PHASES_THE_SESSION_ACTS_ON);
