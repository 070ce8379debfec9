import { z } from 'zod';
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import { agentPhaseSchema } from './agent-phase';
import { modelIdSchema } from './models';
import { MAX_PROMPT_IMAGES, promptImageRefSchema } from './prompt-images';
import { approvalPolicyChangeSchema, budgetChangeSchema, budgetSchema, sessionRecordSchema, sessionSettingsSchema, thinkingLevelSchema, type SessionSettings } from './session-settings';

/**
 * The session workflow's contract: how it starts, the commands it takes (updates with validators, so
 * a rejected command never reaches history; the client's request id is the update id) and what its
 * query answers. Clients address sessions only; the session routes what concerns a turn to it.
 */

/** A prompt waiting for its turn. Turn numbers are handed out when a prompt is accepted. */
const queuedPromptSchema = z.object({
  turn_number: z.number().int().positive(),
  text: z.string(),
  request_id: z.string().optional(),
  /** The prompt's images, stored by the gateway: references only (contracts/prompt-images.ts). */
  images: z.array(promptImageRefSchema).optional(),
  /** The prompt's own caps for its turn (docs/budgets.md). */
  budget: budgetSchema.optional(),
});
export type QueuedPrompt = z.infer<typeof queuedPromptSchema>;

const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60 * 1000;

/**
 * The facts of a session's store record that decide who may prompt it, fixed at its creation: its
 * owner (none with auth off: anyone may) and the job it belongs to (a job's session takes no prompt).
 * @public the shape its type is derived from: contracts own the shape (a schema, types derived).
 */
export const sessionAccessSchema = z.object({ owner: z.string().optional(), job_id: z.string().optional() });
export type SessionAccess = z.infer<typeof sessionAccessSchema>;

/**
 * How a session workflow run starts. A fresh run (first command, or after idling out) carries only
 * the id and reads everything else from the store; a run continued-as-new carries its whole state.
 */
export const sessionWorkflowInputSchema = z.object({
  session_id: z.string().min(1),
  /** Completes the run after this long without a command; the store keeps the session. */
  idle_timeout_ms: z.number().int().positive().default(DEFAULT_IDLE_TIMEOUT_MS),
  carried: z
    .object({
      record: sessionRecordSchema,
      queue: z.array(queuedPromptSchema),
      /** The stream sequence of the last event the run published (where the next turn's events begin after). */
      last_seq: z.number().int().positive().optional(),
    })
    .optional(),
  /**
   * Turns of this run publish their own `session.state` (contracts/session-state-event.ts). A
   * capability flag in the input, set by whoever starts a run (and by continue-as-new), rather than
   * a `patched()` call at each turn's start: such a marker, recorded inside the turn-start workflow
   * task, failed the replay of sessions that had continued as new (a nondeterminism error seen on the
   * dev server). Runs started without it (older code) decide with the patch, as they did.
   */
  turns_publish_state: z.boolean().default(false),
  /**
   * Who may use the session, as the starter read it from the store record: the run refuses a
   * `checkedPrompt` of anyone else itself (docs/architecture.md, "A prompt without a store read"). Absent
   * in runs started by older gateways: such a run cannot check, and says so (ACCESS_UNKNOWN).
   * Carried by continue-as-new with the rest of the input.
   */
  access: sessionAccessSchema.optional(),
  /**
   * Turns of this run announce their own start: the turn's first `session.state` is published by its
   * first model step, together with `turn.started`, and the workflow task that takes a prompt only
   * starts the child (no local activity keeps it open). The turn's events begin right after the last
   * event the session published (between turns nothing else publishes on its stream). A flag, not a
   * patch, for the reason above; runs started without it publish the state themselves, as before.
   * Such a run also leaves a running turn's phases to the turn's StrandPhase search attribute (its
   * own stays `thinking` until the turn ends: one visibility write less per report).
   */
  turns_announce_start: z.boolean().default(false),
  /**
   * Turns of this run keep their own view in their memo and report to the session only the phases it
   * acts on (the turn input's `view_in_memo`); the session's view says so (`turn_keeps_view`), and
   * readers put the running turn's view over it. Set by the gateway that starts the run (it reads
   * that way) and by continue-as-new. Runs started without it get every report, as before.
   */
  turns_keep_view: z.boolean().default(false),
});
export type SessionWorkflowInput = z.input<typeof sessionWorkflowInputSchema>;

/** The input the gateway (or anyone) starts a session's workflow with: the id and its access facts, nothing else to build. */
export function freshSessionInput(sessionId: string, idleTimeoutMs?: number, access?: SessionAccess): SessionWorkflowInput {
  return { session_id: sessionId, turns_publish_state: true, turns_announce_start: true, turns_keep_view: true, ...(idleTimeoutMs ? { idle_timeout_ms: idleTimeoutMs } : {}), ...(access ? { access } : {}) };
}

/** Why a session workflow run ended (it never fails on purpose). */
export type SessionWorkflowResult = { reason: 'idle'; last_turn: number };

/**
 * `prompt`. `behavior` says what to do while a turn runs: `reject` (default: SESSION_BUSY), `queue`
 * (run it after the current turn and any earlier queued ones), `steer` (hand it to the running turn
 * as a steering message; with no turn running it starts one as usual).
 */
export const promptCommandSchema = z.object({
  text: z.string().min(1, 'prompt text must not be empty'),
  request_id: z.string().min(1).max(200).optional(),
  behavior: z.enum(['reject', 'queue', 'steer']).default('reject'),
  /** Images the gateway has stored and checked against the session's model; never the bytes (Temporal's payload limit). */
  images: z.array(promptImageRefSchema).max(MAX_PROMPT_IMAGES).optional(),
  /** Caps for this prompt's turn only; the lower of these and the session's apply (docs/budgets.md). */
  budget: budgetSchema.optional(),
});
export type PromptCommand = z.input<typeof promptCommandSchema>;

/**
 * `checkedPrompt`: a prompt with the caller's principal (none with auth off), sent to a running
 * session without reading the store first. The run checks it against its `access` as the gateway
 * checks a store record: another principal's session is SESSION_NOT_FOUND `no session <id>`, a job's
 * session JOB_SESSION; a run without `access` refuses with ACCESS_UNKNOWN. A separate update, not a
 * field of `prompt`, so a worker that predates the check has no handler for it and refuses it
 * (Temporal: "No registered handler for update"), never ignores it: the gateway then reads the store
 * first, as it always did.
 * @public the shape its type is derived from: contracts own the shape (a schema, types derived).
 */
export const checkedPromptCommandSchema = promptCommandSchema.extend({ principal: z.string().optional() });
export type CheckedPromptCommand = z.input<typeof checkedPromptCommandSchema>;

/** @public the shape its type is derived from: contracts own the shape (a schema, types derived). */
export const promptAcceptedSchema = z.object({
  turn_id: z.string(),
  turn_number: z.number().int().positive(),
  agent_state: agentPhaseSchema,
  /** True when the prompt waits behind a running turn. */
  queued: z.boolean(),
  /** 1-based place in the queue when queued. */
  queue_position: z.number().int().positive().optional(),
  /** True when this request id was seen before: nothing new was started. */
  duplicate: z.boolean(),
  /** True when the prompt went to the running turn (`turn_id`) as a steering message. */
  steered: z.boolean().optional(),
});
export type PromptAccepted = z.infer<typeof promptAcceptedSchema>;

/**
 * The turn an abort, interrupt or steer means: `turn_id` names it; without one (older clients, or a
 * client that does not know it yet) it means the running turn, else the next queued one. The session
 * applies the command to that turn even when its child workflow has not started yet.
 */
export const turnCommandSchema = z.object({ turn_id: z.string().min(1).optional() }).optional();
export type TurnCommand = z.infer<typeof turnCommandSchema>;

/**
 * `aborted` is true when the turn ended (or, not started yet, was dropped) as aborted; false with the
 * turn's id when it had already ended otherwise (`ended: true`) before the abort reached it.
 */
/** @public the shape its type is derived from: contracts own the shape (a schema, types derived). */
export const abortResultSchema = z.object({ aborted: z.boolean(), turn_id: z.string().nullable(), ended: z.boolean().optional() });
export type AbortResult = z.infer<typeof abortResultSchema>;

export const steerCommandSchema = z.object({ text: z.string().min(1, 'steering text must not be empty'), turn_id: z.string().min(1).optional() });
export type SteerCommand = z.infer<typeof steerCommandSchema>;

export const approvalCommandSchema = z.object({
  tool_call_id: z.string().min(1),
  decision: z.enum(['approve', 'reject', 'always']),
  reason: z.string().optional(),
});
export type ApprovalCommand = z.infer<typeof approvalCommandSchema>;

/** What a query of the session returns: small runtime state, never the transcript. */
export const sessionSnapshotSchema = z.object({
  session_id: z.string(),
  project_path: z.string(),
  phase: agentPhaseSchema,
  /** Null for the few milliseconds before a fresh run has read its record. */
  settings: sessionSettingsSchema.nullable(),
  active_turn: z.string().nullable(),
  step: z.number().int().nonnegative().nullable(),
  streaming: z.boolean(),
  retry_attempt: z.number().int().nonnegative(),
  last_turn: z.number().int().nonnegative(),
  queue: z.array(queuedPromptSchema),
  /** Tool calls waiting for a person's answer (so a reconnecting client can show them). */
  pending_approvals: z.array(z.object({ tool_call_id: z.string(), tool: z.string() })),
  interrupt_pending: z.boolean().default(false),
  /** Stream sequence of the running turn's first event: where a client joining mid-turn starts reading. */
  turn_start_seq: z.number().int().positive().nullable(),
  details: z.string().optional(),
  /**
   * The running turn keeps its own phase, step, streaming flag, retry attempt and details in its memo
   * (the session hears only the phases it acts on): readers take those from the turn while it runs.
   */
  turn_keeps_view: z.boolean().optional(),
});
export type SessionSnapshot = z.infer<typeof sessionSnapshotSchema>;

/**
 * The failure type of a command that concerns something running (a turn, a retry wait, a user's
 * command, the queue) when nothing is: its validator rejects it, so it never reaches history, and the
 * gateway answers the command's "nothing happened" result (`{aborted: false}`, `{cleared: 0}`, …).
 */
export const NOTHING_RUNNING = 'NOTHING_RUNNING';

/** Starts a turn, or queues it (`behavior: queue`); SESSION_BUSY while a turn runs otherwise. */
export const promptUpdate = defineUpdate<PromptAccepted, [PromptCommand]>('prompt');
/** The same as `prompt`, after the run has checked the caller (checkedPromptCommandSchema). */
export const checkedPromptUpdate = defineUpdate<PromptAccepted, [CheckedPromptCommand]>('checkedPrompt');
/** Stops the running turn, or the one named (the turn records what it had and ends `aborted`); a queued one is dropped. */
export const abortUpdate = defineUpdate<AbortResult, [TurnCommand]>('abort');
/** Gives up a scheduled provider retry: the turn ends with the error it was retrying. */
export const abortRetryUpdate = defineUpdate<{ cancelled: boolean; turn_id: string | null }, []>('abortRetry');
/**
 * A message for the running turn (or the one named, or the next queued one), delivered after its
 * current tool batch; to a turn not started yet, as soon as it has. `delivered: false` with a turn id:
 * that turn had already ended.
 */
export const steerUpdate = defineUpdate<{ delivered: boolean; turn_id: string | null }, [SteerCommand]>('steer');
/**
 * Asks the running turn to stop at its next step boundary (psi's deferred interrupt): the model step
 * under way and its tool calls finish, then the turn ends without calling the model again. Steering
 * text already sent is kept (recorded as user messages). `pending` is false when no turn runs or
 * waits, or (with the turn's id) when that turn had already ended. A turn not started yet takes it
 * as soon as it starts.
 */
export const interruptUpdate = defineUpdate<{ pending: boolean; turn_id: string | null }, [TurnCommand]>('interrupt');
/** A person's answer to a pending tool approval. */
export const approvalUpdate = defineUpdate<{ resolved: boolean }, [ApprovalCommand]>('approval');
/** Drops queued prompts that have not started. */
export const clearQueueUpdate = defineUpdate<{ cleared: number }, []>('clearQueue');
/**
 * A change of settings; given fields replace, the rest stay. The caller (the gateway's session
 * service) has already checked the model against the catalog and clamped the thinking level to it.
 */
export const settingsChangeSchema = z.strictObject({
  model: modelIdSchema.optional(),
  thinking_level: thinkingLevelSchema.optional(),
  auto_retry: z.boolean().optional(),
  auto_compaction: z.boolean().optional(),
  approval: approvalPolicyChangeSchema.optional(),
  name: z.string().max(200).optional(),
  /** Spending caps: given fields replace, null clears one (docs/budgets.md). */
  budget: budgetChangeSchema.optional(),
});
export type SettingsChange = z.infer<typeof settingsChangeSchema>;

/** Changes settings (persisted in the store, published as `session.state`); applies from the next turn. */
export const setSettingsUpdate = defineUpdate<SessionSettings, [SettingsChange]>('setSettings');

/** Compacts the conversation now (only while idle); `instructions` steer what the summary keeps. */
export const compactUpdate = defineUpdate<{ compacted: boolean; summary: string; tokens_before: number; tokens_after: number }, [{ instructions?: string }]>('compact');

/** A shell command the user runs themselves in the session's workspace (psi's `bash` op). */
export const userCommandSchema = z.strictObject({
  command: z.string().min(1).max(100_000),
  timeout_s: z.number().int().positive().max(3_600).optional(),
});
export type UserCommand = z.infer<typeof userCommandSchema>;

/** What the command printed (capped; the whole output kept at `full_output_path` when cut) and how it ended. */
export interface UserCommandResult {
  output: string;
  exit_code: number | null;
  cancelled: boolean;
  truncated: boolean;
  full_output_path?: string;
}

/** Runs a user's shell command (only while idle): streamed like a tool call, recorded in the conversation. */
export const userCommandUpdate = defineUpdate<UserCommandResult, [UserCommand]>('userCommand');
/** Stops the running user command (its process group is killed); `stopped: false` when none runs. */
export const abortUserCommandUpdate = defineUpdate<{ stopped: boolean }, []>('abortUserCommand');

/** Reads the session's runtime state. */
export const sessionStateQuery = defineQuery<SessionSnapshot>('sessionState');
