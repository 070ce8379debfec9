import { z } from 'zod';
import { agentPhaseSchema } from './agent-phase';
import { contentBlockSchema } from './session-store/messages';
import { subagentMarkerSchema } from './subagents';

/**
 * Canonical agent events: the one vocabulary the worker publishes to JetStream and every gateway
 * adapter maps onto its protocol (docs/architecture.md). Adapters never invent semantics; a new kind of
 * thing the agent does becomes a new member of this union first.
 */

export { agentPhaseSchema, type AgentPhase } from './agent-phase';

/** Token/cost accounting carried by `usage` and final assistant messages. */
export const eventUsageSchema = z.object({
  input: z.number().int().nonnegative().default(0),
  output: z.number().int().nonnegative().default(0),
  cache_read: z.number().int().nonnegative().default(0),
  cache_write: z.number().int().nonnegative().default(0),
  cost_usd: z.number().nonnegative().default(0),
});
export type EventUsage = z.infer<typeof eventUsageSchema>;

const step = z.number().int().nonnegative();

/** Every event the agent emits, discriminated on `type`. */
export const agentEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('session.state'),
    phase: agentPhaseSchema,
    model: z.string(),
    thinking_level: z.string(),
    queue_length: z.number().int().nonnegative(),
    /** The running turn, if any. */
    turn_id: z.string().nullable().default(null),
    /** True while a model step streams. */
    streaming: z.boolean().default(false),
    /** The provider retry under way (0 = none). */
    retry_attempt: z.number().int().nonnegative().default(0),
    session_name: z.string().optional(),
    auto_retry: z.boolean().optional(),
    auto_compaction: z.boolean().optional(),
    details: z.string().optional(),
    /** True from an interrupt until the running turn stops at its next step boundary. */
    interrupt_pending: z.boolean().optional(),
  }),
  z.object({ type: z.literal('turn.started'), turn_id: z.string(), prompt: z.string() }),
  /**
   * The next piece of a step's text: it appends. A step retried after a crash or a dropped stream
   * continues from the text already published (the provider is given it as a prefill), so its
   * deltas append too; only a `stream.reset` takes text back, and a delta of an older attempt than
   * one already seen for the step is a straggler to drop (contracts/step-text.ts).
   */
  z.object({ type: z.literal('assistant.delta'), turn_id: z.string(), step, text: z.string() }),
  z.object({ type: z.literal('assistant.thinking_delta'), turn_id: z.string(), step, text: z.string() }),
  z.object({
    type: z.literal('assistant.message'),
    turn_id: z.string(),
    step,
    entry_id: z.string(),
    /** The text blocks joined (what a plain client shows). */
    text: z.string(),
    /** The whole message as stored: text, thinking, tool calls. */
    content: z.array(contentBlockSchema).default([]),
    stop_reason: z.enum(['end', 'length', 'function_call', 'aborted', 'error']),
    usage: eventUsageSchema.optional(),
    model: z.string().optional(),
  }),
  z.object({
    type: z.literal('tool.call'),
    turn_id: z.string().optional(),
    step: step.optional(),
    tool_call_id: z.string(),
    tool: z.string(),
    params: z.unknown(),
    requires_approval: z.boolean(),
  }),
  z.object({ type: z.literal('tool.executing'), tool_call_id: z.string() }),
  z.object({ type: z.literal('tool.output'), tool_call_id: z.string(), content: z.string() }),
  z.object({
    type: z.literal('tool.result'),
    tool_call_id: z.string(),
    status: z.enum(['success', 'error', 'rejected', 'skipped']),
    is_error: z.boolean(),
    /** One line a client can show in a tool row. */
    summary: z.string(),
    result: z.unknown(),
  }),
  z.object({
    type: z.literal('file.changed'),
    path: z.string(),
    operation: z.enum(['write', 'edit', 'delete']),
    timestamp: z.number().int(),
  }),
  z.object({ type: z.literal('usage'), ...eventUsageSchema.shape }),
  z.object({
    type: z.literal('approval.requested'),
    tool_call_id: z.string(),
    tool: z.string(),
    params: z.unknown(),
    timeout_s: z.number().nonnegative(),
  }),
  z.object({
    type: z.literal('approval.resolved'),
    tool_call_id: z.string(),
    decision: z.enum(['approved', 'rejected', 'timed_out']),
  }),
  z.object({
    type: z.literal('retry.scheduled'),
    turn_id: z.string().optional(),
    step: step.optional(),
    attempt: z.number().int().positive(),
    max_attempts: z.number().int().positive().optional(),
    delay_ms: z.number().int().nonnegative(),
    /** The failure class (rate_limited, overloaded, transient, or infrastructure: strand's own parts). */
    kind: z.string().optional(),
    reason: z.string(),
  }),
  /**
   * A retried model step that could not continue its answer (see `assistant.delta`) streams it again:
   * the step's text so far is void and the deltas that follow replace it. A step that can continue
   * sends no reset; its deltas (under a higher envelope `attempt`) carry only what follows.
   */
  z.object({ type: z.literal('stream.reset'), turn_id: z.string(), step }),
  z.object({ type: z.literal('compaction.started'), reason: z.enum(['manual', 'threshold', 'overflow']) }),
  z.object({ type: z.literal('compaction.finished'), summary: z.string(), tokens_before: z.number().int() }),
  z.object({
    type: z.literal('checklist'),
    items: z.array(z.object({ id: z.string(), text: z.string(), status: z.enum(['pending', 'in_progress', 'done']) })),
  }),
  /**
   * The turn stopped before a model step because the session's spending reached a cap (docs/budgets.md):
   * it waits in phase `waiting_budget` until the cap is raised (continues) or it is interrupted or
   * aborted (ends `aborted`). `limit` is the cap in force (the lower of the session's and the prompt's).
   */
  z.object({
    type: z.literal('budget.exceeded'),
    turn_id: z.string().optional(),
    step: step.optional(),
    spent_usd: z.number().nonnegative(),
    spent_tokens: z.number().int().nonnegative(),
    limit: z.object({ max_cost_usd: z.number().nullable(), max_tokens: z.number().int().nullable() }),
  }),
  z.object({ type: z.literal('notice'), level: z.enum(['info', 'warning']), message: z.string() }),
  /** The active leaf moved without a turn (a revert or a redo, docs/undo.md): a client showing the conversation reads it again. */
  z.object({ type: z.literal('conversation.moved'), reason: z.enum(['revert', 'redo']), active_leaf: z.string().nullable() }),
  z.object({
    type: z.literal('error'),
    code: z.string(),
    message: z.string(),
    turn_id: z.string().optional(),
    /** For provider failures: who failed, the HTTP status, the failure class. */
    provider: z.string().optional(),
    status: z.number().int().optional(),
    kind: z.string().optional(),
  }),
  z.object({
    type: z.literal('turn.finished'),
    turn_id: z.string(),
    outcome: z.enum(['done', 'error', 'aborted']),
    steps: z.number().int().nonnegative().optional(),
  }),
]);
export type AgentEvent = z.infer<typeof agentEventSchema>;

/**
 * The versioned envelope every event travels in. `seq` is filled in by the reader from the JetStream
 * sequence (it is the session's monotonic event sequence: strictly increasing, never reused);
 * `attempt` is the activity attempt that produced a streamed event, so a retried step is visible.
 */
export const agentEventEnvelopeSchema = z.object({
  v: z.literal(1),
  session_id: z.string(),
  turn_id: z.string().optional(),
  seq: z.number().int().positive().optional(),
  ts: z.number().int(),
  attempt: z.number().int().positive().optional(),
  /** Set on a sub-agent's event on its parent's stream (docs/subagents.md): not the parent turn's own content. */
  subagent: subagentMarkerSchema.optional(),
  event: agentEventSchema,
});
export type AgentEventEnvelope = z.infer<typeof agentEventEnvelopeSchema>;
