import { z } from 'zod';
import { agentPhaseSchema } from './agent-phase';
import { promptImageRefSchema } from './prompt-images';
import { budgetSchema, seenRequestSchema, sessionSettingsSchema } from './session-settings';
import { sessionStatePartSchema } from './session-state-event';
import { subagentRunSchema } from './subagents';
import { TURN_INPUT_DEFAULTS } from './turn-protocol';

/**
 * The turn workflow's contract. A turn is a child of its session workflow; it hears from clients only
 * through the session (the routing rule: steer, approvals and abort go to the running turn as
 * signals), and it reports its progress back so the session, the owner of the phase, knows it. The
 * states themselves are published by the turn while it runs (contracts/session-state-event.ts).
 */

export const turnWorkflowInputSchema = z.object({
  session_id: z.string(),
  project_path: z.string(),
  turn_number: z.number().int().positive(),
  text: z.string(),
  /** The prompt's images (references; the model step loads the bytes). Absent for text prompts and older sessions. */
  images: z.array(promptImageRefSchema).optional(),
  settings: sessionSettingsSchema,
  /** Bounds the model ↔ tools loop (long jobs run hundreds of steps; the turn continues as new on the way). */
  max_steps: z.number().int().positive().default(TURN_INPUT_DEFAULTS.max_steps),
  /** Where a turn continued-as-new picks up; 0 for a new turn. */
  first_step: z.number().int().nonnegative().default(TURN_INPUT_DEFAULTS.first_step),
  /**
   * Steering messages not yet delivered: when the turn continued as new, or sent to the turn before its
   * child existed (the session's intents, `interrupted` beside them).
   */
  steering: z.array(z.string()).default(() => [...TURN_INPUT_DEFAULTS.steering]),
  /**
   * Interrupted before its child existed: the turn stops at its first step boundary, as if the
   * interrupt had come with its start. Absent: not interrupted (or the interrupt comes as a signal).
   */
  interrupted: z.boolean().optional(),
  /** Persisted by the turn's first store write, before any of its entries exist. */
  record: z.object({ last_turn: z.number().int().nonnegative(), requests: z.array(seenRequestSchema) }),
  /**
   * Set by a session that acknowledges progress reports once it has published them: the turn then
   * waits for that before it goes on, so a client never sees the step's answer before the state that
   * announced the step. Absent (false) for a turn started by a session that predates acknowledgements.
   */
  progress_acks: z.boolean().default(TURN_INPUT_DEFAULTS.progress_acks),
  /**
   * Set by a session that lets the turn publish `session.state` itself while it runs (the session's
   * part of it given here and by `turnSessionPartSignal`): a report then costs no round trip, and one
   * publisher keeps the states in order with the turn's other events. Wins over `progress_acks`.
   */
  publishes_state: z.boolean().default(TURN_INPUT_DEFAULTS.publishes_state),
  /**
   * Set by the session: `thinking` is reported right before the next step. A capability flag rather
   * than a `patched()` marker, because a marker upserts the TemporalChangeVersion search attribute in
   * every turn's first workflow task (a visibility write before the model step is scheduled). Absent
   * for turns started by older sessions, which decide with the patch (workflows/turn/turn-state.ts).
   */
  thinking_before_next_step: z.boolean().optional(),
  session_part: sessionStatePartSchema.optional(),
  /**
   * Set by a session that has not published the turn's first `session.state` (`thinking`): the turn's
   * first model step publishes it, built from `session_part`, right before `turn.started`. Needs
   * `publishes_state`. Absent for turns of older sessions and of jobs, whose starter published it.
   */
  announces_start: z.boolean().optional(),
  /**
   * Set by the session: the turn runs its local activities one at a time without asking the
   * `local-activities-in-order` patch (whose marker cost every turn a TemporalChangeVersion upsert).
   * Absent for turns of older sessions, of jobs and sub-agents, which ask the patch.
   */
  local_activities_in_order: z.boolean().optional(),
  /**
   * Set by the session: a report the session does not acknowledge is sent by the local activity that
   * publishes its state (`publishTurnState`), not by a signal from the turn's workflow, whose
   * confirmation costs the turn a workflow task each. Absent: the turn signals, as before.
   */
  reports_by_activity: z.boolean().optional(),
  /**
   * Set by the session (with `reports_by_activity`): the turn keeps its phase, step, streaming flag,
   * retry attempt and details in its memo (`TURN_VIEW_MEMO_KEY`) at each report, and reports to the
   * session only the phases it acts on and the one after them (`PHASES_THE_SESSION_ACTS_ON`). A
   * tool call's two routine reports then cost the session no workflow task; readers put the turn's
   * view over the session's (services/gateway/temporal/session-views.ts). Absent: every report goes
   * to the session, as before.
   */
  view_in_memo: z.boolean().optional(),
  /** Set when the turn runs as a sub-agent, the child of a parent turn's `task` call (docs/subagents.md). */
  subagent: subagentRunSchema.optional(),
  /** The prompt's own caps ("per job"): the lower of these and the session's apply. Absent: the session's only. */
  budget: budgetSchema.optional(),
});
export type TurnWorkflowInput = z.input<typeof turnWorkflowInputSchema>;

/** @public the shape its type is derived from: contracts own the shape (a schema, types derived). */
export const turnOutcomeSchema = z.enum(['done', 'error', 'aborted']);
export type TurnOutcome = z.infer<typeof turnOutcomeSchema>;

/** How a turn ended, reported to the session workflow (which publishes `turn.finished`). */
export interface TurnWorkflowResult {
  turn_id: string;
  outcome: TurnOutcome;
  steps: number;
  /** Asked to stop at a step boundary (psi's interrupt, or a sub-agent's parent's). */
  interrupted?: boolean;
}

/** A turn's report of where it is, so the session knows its phase (and publishes `session.state` for a turn that does not). */
/** @public the shape its type is derived from: contracts own the shape (a schema, types derived). */
export const turnProgressSchema = z.object({
  turn_id: z.string(),
  phase: agentPhaseSchema,
  step: z.number().int().nonnegative(),
  streaming: z.boolean().default(false),
  retry_attempt: z.number().int().nonnegative().default(0),
  details: z.string().optional(),
  /** Tool calls waiting for a person's answer (phase waiting_approval). */
  pending_approvals: z.array(z.object({ tool_call_id: z.string(), tool: z.string() })).default([]),
  /** Present when the turn waits for the session to acknowledge this report (`turnProgressPublishedSignal`). */
  report_id: z.string().optional(),
});
export type TurnProgress = z.input<typeof turnProgressSchema>;

// The signals live in a zod-free module a turn run imports without evaluating the schemas above.
export {
  turnAbortSignal,
  turnSteerSignal,
  turnAbortRetrySignal,
  turnInterruptSignal,
  turnApprovalSignal,
  turnProgressPublishedSignal,
  turnSessionPartSignal,
  turnBudgetSignal,
  turnProgressSignal,
} from './turn-protocol';
