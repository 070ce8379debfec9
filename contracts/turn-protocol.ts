import { defineSignal } from '@temporalio/workflow';
import type { Budget } from './session-settings';
import type { SessionStatePart } from './session-state-event';
import type { TurnProgress } from './turn-workflow';

/**
 * What a turn workflow run needs of its contract at run time, without zod: its signals and its input's
 * defaults. Every prompt starts a turn run, and a run evaluates the modules it imports afresh
 * (bench:workflow-start); the schemas (contracts/turn-workflow.ts, which re-exports all of this) are
 * evaluated only when an input needs the full parse (workflows/turn/turn-input.ts).
 */

/** The defaults of the turn input's optional fields (the schema's `.default(...)` values). */
export const TURN_INPUT_DEFAULTS = {
  max_steps: 500,
  first_step: 0,
  steering: [] as readonly string[],
  progress_acks: false,
  publishes_state: false,
} as const;

/**
 * The memo key under which a turn started with `view_in_memo` keeps its own part of the session's
 * view (contracts/session-live-view.ts, `turnLiveViewSchema`): phase, step, streaming, retry attempt,
 * details, as of its last report. Readers put it over the session's view while that turn runs.
 */
export const TURN_VIEW_MEMO_KEY = 'strand_turn_view';

/**
 * The phases a session acts on (an approval answered, a retry given up, caps raised): a turn that
 * keeps its view in its memo still reports these to its session, and the report after them, which
 * ends them. The rest (thinking, tool_execution, compacting) only the turn's memo and stream carry.
 */
export const PHASES_THE_SESSION_ACTS_ON: readonly string[] = ['waiting_approval', 'retrying', 'waiting_budget'];

/** Share of the model's context window past which a turn with `auto_compaction` on compacts before its next step. */
export const DEFAULT_COMPACTION_THRESHOLD = 0.8;

/** Session → turn. */
export const turnAbortSignal = defineSignal<[]>('turnAbort');
export const turnSteerSignal = defineSignal<[{ text: string }]>('turnSteer');
/** Stop waiting for a scheduled provider retry: the turn ends with the error it was retrying. */
export const turnAbortRetrySignal = defineSignal<[]>('turnAbortRetry');
/** Stop at the next step boundary: the step under way (and its tool calls) finishes, no further model call. */
export const turnInterruptSignal = defineSignal<[]>('turnInterrupt');
export const turnApprovalSignal = defineSignal<[{ tool_call_id: string; decision: 'approve' | 'reject' | 'always'; reason?: string }]>('turnApproval');
/** The session has published the state of the report `report_id` (or found it stale): the turn may go on. */
export const turnProgressPublishedSignal = defineSignal<[{ report_id: string }]>('turnProgressPublished');
/** The session's part of `session.state` changed (queue, settings, an interrupt): a turn that publishes the state publishes it anew. */
export const turnSessionPartSignal = defineSignal<[SessionStatePart]>('turnSessionPart');
/** The session's caps changed (a settings change): a turn waiting in `waiting_budget` checks again. Absent caps: none. */
export const turnBudgetSignal = defineSignal<[{ budget?: Budget }]>('turnBudget');
/** Turn → session. */
export const turnProgressSignal = defineSignal<[TurnProgress]>('turnProgress');
