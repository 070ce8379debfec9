import { z } from 'zod';
import { agentPhaseSchema, eventUsageSchema } from './agent-events';
import { chatStreamTerminalSchema, wsEventSchema } from './ws-rpc';

/**
 * The `data:` of each frame of `GET /api/sessions/{id}/events` (docs/http.md, "Events"): one
 * compact JSON object whose `type` is also the frame's `event:` name. The gateway maps canonical
 * agent events onto these (services/gateway/mapping/http-events.ts); the OpenAPI document describes
 * the stream with this union.
 */
const step = z.number().int().nonnegative().describe('The model step of the turn (0, 1, …) the text belongs to.');
const attempt = z
  .number()
  .int()
  .positive()
  .describe(
    "The provider attempt that produced it. A retried step normally continues the answer (a higher attempt, text that simply appends); after `stream.reset` the step's text is replaced; a delta of an older attempt than one already seen for the step is a straggler: drop it.",
  );

export const httpEventDataSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('agent.state'), state: agentPhaseSchema, details: z.string().optional() }),
  z.object({ type: z.literal('message.delta'), content: z.string().describe("The next piece of the step's text: append it."), role: z.literal('assistant'), turn_id: z.string(), step, attempt }),
  z.object({ type: z.literal('thinking.delta'), content: z.string(), turn_id: z.string(), step, attempt }),
  z.object({
    type: z.literal('message.done'),
    entry_id: z.string(),
    content: z.string().describe("The message's text blocks joined."),
    stop_reason: z.enum(['end', 'length', 'function_call', 'aborted', 'error']),
    usage: eventUsageSchema.nullable(),
  }),
  z.object({ type: z.literal('tool.call'), tool_call_id: z.string(), tool: z.string(), params: z.unknown(), requires_approval: z.boolean() }),
  z.object({ type: z.literal('tool.output'), tool_call_id: z.string(), content: z.string().describe('The next piece of the output (incremental).') }),
  z.object({ type: z.literal('tool.result'), tool_call_id: z.string(), status: z.enum(['success', 'error', 'rejected']), result: z.unknown() }),
  z.object({ type: z.literal('file.changed'), path: z.string(), operation: z.enum(['write', 'edit', 'delete']), timestamp: z.number().int() }),
  /** A revert or redo moved the conversation's active leaf (docs/undo.md): read the conversation again. */
  z.object({ type: z.literal('conversation.moved'), reason: z.enum(['revert', 'redo']), active_leaf: z.string().nullable() }),
  z.object({
    type: z.literal('retry'),
    attempt: z.number().int().positive(),
    delay_ms: z.number().int().nonnegative(),
    reason: z.string(),
    kind: z.string().optional().describe('The failure class: rate_limited, overloaded, transient, or infrastructure (strand\'s own parts).'),
    max_attempts: z.number().int().positive().optional().describe('How many attempts this kind of failure gets.'),
  }),
  z
    .object({ type: z.literal('stream.reset'), turn_id: z.string(), step, attempt })
    .describe("A retried step that could not continue its answer streams it again: drop the step's text so far; the deltas that follow replace it."),
  z.object({ type: z.literal('usage'), ...eventUsageSchema.shape }),
  z.object({
    type: z.literal('error'),
    message: z.string(),
    code: z.string().describe('LLM_API_ERROR for a provider failure; SLOW_CONSUMER just before a client that does not keep up is cut.'),
  }),
  z.object({ type: z.literal('turn.finished'), turn_id: z.string(), outcome: z.enum(['done', 'error', 'aborted']) }),
  z.object({ type: z.literal('compaction.started'), reason: z.enum(['manual', 'threshold', 'overflow']) }).describe('The older conversation is being summarised (asked for, past the threshold, or after a context overflow).'),
  z
    .object({ type: z.literal('compaction.finished'), summary: z.string().describe('Empty when there was nothing old enough to summarise.'), tokens_before: z.number().int() })
    .describe('The older conversation was summarised: later steps read the summary instead.'),
  z
    .object({
      type: z.literal('budget.exceeded'),
      turn_id: z.string().optional(),
      spent_usd: z.number().nonnegative(),
      spent_tokens: z.number().int().nonnegative(),
      limit: z.object({ max_cost_usd: z.number().nullable(), max_tokens: z.number().int().nullable() }),
    })
    .describe('The session\'s spending reached a cap before a model step: the turn waits in `waiting_budget` until the budget is raised (`PATCH …/settings {"budget": …}`) or it is interrupted (docs/budgets.md).'),
  z
    .object({
      type: z.literal('subagent'),
      tool_call_id: z.string().describe('The parent turn\'s `task` call the sub-agent runs for.'),
      session_id: z.string().describe('The sub-agent\'s sub-session.'),
      event: z.string().describe('The frame this would be on its own (`message.delta`, `tool.call`, `tool.result`, `message.done`, …).'),
      data: z.record(z.string(), z.unknown()).describe('That frame\'s data.'),
    })
    .describe('Something a sub-agent of a `task` call did (docs/subagents.md): never part of the parent turn\'s own answer.'),
  z
    .object({ type: z.literal('notice'), level: z.enum(['info', 'warning']), message: z.string() })
    .describe('Something a person should know that is not an error: e.g. project instructions cut to their size cap, or an instruction file that could not be read.'),
]);
export type HttpEventData = z.infer<typeof httpEventDataSchema>;

/**
 * The `data:` of each frame of `POST /v1/chat/stream` (docs/websocket.md): chat events, then one
 * terminal `done` or `error` frame. Both unions have an `error` member, so this is an `anyOf`.
 */
export const chatStreamFrameSchema = z.union([wsEventSchema, chatStreamTerminalSchema]);
