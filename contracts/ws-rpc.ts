import { z } from 'zod';
import { strictRequest } from './strict-request';

/**
 * The WebSocket JSON RPC protocol of docs/websocket.md, spoken at `ws://host:port/v1/rpc` by CLI and
 * app clients (the reference client is acolyte). Server frames are flat `{id, type, ...fields}`, as
 * that client parses them; a frame that fails its schema is dropped silently there (a malformed
 * `chat.done` leaves it waiting forever), so the gateway validates every frame it sends against these.
 */

/** The protocol version `/v1/status` reports; clients accept a server only when it is exactly this string. */
export const WS_PROTOCOL_VERSION = '1';

/** Most chats one connection may hold waiting behind its running one. */
export const RPC_MAX_QUEUED = 25;

/** The id of a protocol error that answers a frame whose own id could not be read. */
export const RPC_UNKNOWN_ID = 'rpc_unknown';

/** A transport request id: names one request on one connection, chosen by the client. */
export const rpcRequestIdSchema = z.string().regex(/^rpc_[a-z0-9]+$/, 'request ids look like rpc_<a-z0-9>');

/** A durable task id: names the turn a chat started, valid across gateway and worker restarts. */
export const taskIdSchema = z.string().regex(/^task_[a-z0-9]+$/, 'task ids look like task_<a-z0-9>');
export type TaskId = z.infer<typeof taskIdSchema>;

/** One earlier message of the client's conversation; seeds a session that does not exist yet. */
const historyItemSchema = z.strictObject({
  id: z.string(),
  role: z.enum(['system', 'user', 'assistant']),
  content: z.string(),
  kind: z.enum(['text', 'tool_payload', 'status']).default('text'),
  timestamp: z.string(),
});
export type HistoryItem = z.infer<typeof historyItemSchema>;

/**
 * What `chat.start` (and `POST /v1/chat/stream`) asks for. Strict: an unknown key is an error, so a
 * client speaking a newer protocol learns it at once. `model` may be a bare catalog id (`gpt-5-mini`);
 * `workspace` is the client's working directory, the project a new session works in. `sessionId` is
 * the client's own name for its session: with auth on the gateway scopes it to the principal (the
 * stored session id then differs from it; see docs/http.md, "Session ids a client chooses").
 */
export const chatRequestSchema = z.strictObject({
  message: z.string().max(100_000),
  history: z.array(historyItemSchema).max(500),
  model: z.string().max(200),
  sessionId: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'session ids are 1-128 of A-Z a-z 0-9 _ -').optional(),
  resourceId: z.string().max(200).optional(),
  workspace: z.string().max(4096).optional(),
  activeSkills: z.array(z.strictObject({ name: z.string().min(1), instructions: z.string().min(1) })).optional(),
  suggestions: z.array(z.string().max(1_000)).max(10).optional(),
});
export type ChatRequest = z.infer<typeof chatRequestSchema>;

/**
 * Every frame a client may send. `chat.attach` is strand's durability extension: re-join a task's
 * stream after a dropped socket or a gateway restart, from just after the last sequence seen.
 * Strict at every depth (strict-request.ts): an unknown key anywhere is an `error` frame naming it.
 */
export const rpcClientFrameSchema = strictRequest(
  z.discriminatedUnion('type', [
    z.object({ id: rpcRequestIdSchema, type: z.literal('status.get') }),
    z.object({ id: rpcRequestIdSchema, type: z.literal('chat.start'), payload: z.object({ request: chatRequestSchema }) }),
    z.object({ id: rpcRequestIdSchema, type: z.literal('chat.abort'), payload: z.object({ requestId: rpcRequestIdSchema }) }),
    z.object({ id: rpcRequestIdSchema, type: z.literal('task.status'), payload: z.object({ taskId: taskIdSchema }) }),
    z.object({
      id: rpcRequestIdSchema,
      type: z.literal('chat.attach'),
      payload: z.object({ taskId: taskIdSchema, afterSeq: z.number().int().nonnegative().optional() }),
    }),
  ]),
);
export type RpcClientFrame = z.infer<typeof rpcClientFrameSchema>;

/** Structured error detail (stable keys; clients show `code`/`kind`). */
const streamErrorSchema = z.object({
  code: z.string().optional(),
  category: z.string().optional(),
  kind: z.string().optional(),
  source: z.string().optional(),
  tool: z.string().optional(),
});

/** Token counts as the protocol reports them (per step in events, per turn in the reply). */
const replyUsageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative(),
});

/** A chat's final payload: the answer, the model that gave it, and what the turn cost. */
export const chatReplySchema = z.object({
  /** The final answer text (the turn's last model step). */
  output: z.string(),
  /** True when `output` already reached the client as text deltas (it is then not shown twice). */
  outputStreamed: z.boolean(),
  model: z.string().min(1),
  usage: replyUsageSchema.optional(),
  /** Names of the tools the turn called, in call order. */
  toolCalls: z.array(z.string()).optional(),
  modelCalls: z.number().int().nonnegative().optional(),
  error: z.string().optional(),
});
export type ChatReply = z.infer<typeof chatReplySchema>;

/** A task as `task.status` answers it. */
const taskRecordSchema = z.object({
  id: taskIdSchema,
  state: z.enum(['accepted', 'queued', 'running', 'completed', 'failed', 'cancelled']),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type TaskRecord = z.infer<typeof taskRecordSchema>;
export type TaskState = TaskRecord['state'];

/** The providers the reference client knows; strand's others are listed under `strand_providers`. */
export const statusProviderSchema = z.enum(['anthropic', 'google', 'openai', 'vercel']);

/**
 * `GET /v1/status` and `status.result`. Parsed strictly by clients: extra keys may carry only a
 * boolean, string, number or string[].
 */
export const statusPayloadSchema = z
  .object({
    ok: z.literal(true),
    providers: z.array(statusProviderSchema),
    provider_auth: z.array(z.string()),
    model: z.string(),
    protocol_version: z.string(),
    capabilities: z.string(),
    service: z.string(),
    tasks_total: z.number().int().min(0),
    tasks_running: z.number().int().min(0),
    rpc_queue_length: z.number().int().min(0),
  })
  .catchall(z.union([z.boolean(), z.string(), z.number(), z.array(z.string())]));
export type StatusPayload = z.infer<typeof statusPayloadSchema>;

/** Parts of a tool row (the subset of the reference client's vocabulary strand sends). */
const toolOutputPartSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('tool-header'), labelKey: z.string().trim().min(1), detail: z.string().optional() }),
  z.object({ kind: z.literal('text'), text: z.string().trim().min(1) }),
  z.object({ kind: z.literal('shell-output'), stream: z.enum(['stdout', 'stderr']), text: z.string() }),
]);

/**
 * The events of one chat (`chat.event.event`, and each `data:` frame of `/v1/chat/stream`).
 * `tool-output` and `tool-result` always name a `toolCallId` announced by an earlier `tool-call`.
 */
export const wsEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('status'),
    state: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('queued'), position: z.number().int().nonnegative().optional() }),
      z.object({ kind: z.literal('accepted') }),
      z.object({ kind: z.literal('running'), toolCalls: z.number().int().nonnegative().optional() }),
    ]),
  }),
  z.object({ type: z.literal('text-delta'), text: z.string() }),
  z.object({ type: z.literal('reasoning'), text: z.string() }),
  z.object({ type: z.literal('tool-call'), toolCallId: z.string(), toolName: z.string(), args: z.record(z.string(), z.unknown()) }),
  z.object({ type: z.literal('tool-output'), toolCallId: z.string(), toolName: z.string(), content: toolOutputPartSchema }),
  z.object({
    type: z.literal('tool-result'),
    toolCallId: z.string(),
    toolName: z.string(),
    isError: z.boolean().optional(),
    errorCode: z.string().optional(),
    error: streamErrorSchema.optional(),
  }),
  z.object({ type: z.literal('usage'), inputTokens: z.number().int().nonnegative(), outputTokens: z.number().int().nonnegative() }),
  /**
   * The agent's checklist. docs/websocket.md calls this event `checklist`, but the reference client's
   * schema only accepts `tasklist` (an event it cannot parse it drops silently), so it goes out under that name.
   */
  z.object({
    type: z.literal('tasklist'),
    groupId: z.string().min(1),
    groupTitle: z.string().min(1),
    items: z.array(
      z.object({
        id: z.string().min(1),
        label: z.string().min(1),
        status: z.enum(['pending', 'in_progress', 'done', 'failed']),
        order: z.number().int().nonnegative(),
      }),
    ),
  }),
  z.object({ type: z.literal('notice'), level: z.enum(['warn', 'error']), message: z.string(), source: z.string().optional() }),
  z.object({
    type: z.literal('error'),
    errorMessage: z.string(),
    errorId: z.string().optional(),
    errorCode: z.string().optional(),
    error: streamErrorSchema.optional(),
  }),
]);
export type WsEvent = z.infer<typeof wsEventSchema>;

/** `chat.error` fields, also the SSE variant's terminal error frame. */
const chatErrorFieldsSchema = z.object({
  errorMessage: z.string(),
  errorCode: z.string().optional(),
  errorId: z.string().regex(/^err_[a-z0-9]+$/).optional(),
  error: streamErrorSchema.optional(),
});

/** Every frame the server sends; each carries the id of the request it answers. */
export const rpcServerFrameSchema = z.discriminatedUnion('type', [
  z.object({ id: rpcRequestIdSchema, type: z.literal('status.result'), status: statusPayloadSchema }),
  z.object({ id: rpcRequestIdSchema, type: z.literal('chat.accepted'), taskId: taskIdSchema }),
  z.object({ id: rpcRequestIdSchema, type: z.literal('chat.queued'), position: z.number().int().min(1) }),
  z.object({ id: rpcRequestIdSchema, type: z.literal('chat.started') }),
  /** `seq`: the event's place in the session's stream, what `chat.attach` resumes after. */
  z.object({ id: rpcRequestIdSchema, type: z.literal('chat.event'), event: wsEventSchema, seq: z.number().int().positive().optional() }),
  z.object({ id: rpcRequestIdSchema, type: z.literal('chat.done'), reply: chatReplySchema }),
  z.object({ id: rpcRequestIdSchema, type: z.literal('chat.error'), ...chatErrorFieldsSchema.shape }),
  z.object({ id: rpcRequestIdSchema, type: z.literal('chat.abort.result'), requestId: rpcRequestIdSchema, aborted: z.boolean() }),
  z.object({ id: rpcRequestIdSchema, type: z.literal('task.status.result'), task: taskRecordSchema.nullable() }),
  z.object({ id: rpcRequestIdSchema, type: z.literal('error'), error: z.string() }),
]);
export type RpcServerFrame = z.infer<typeof rpcServerFrameSchema>;

/** The terminal `data:` frame of `POST /v1/chat/stream`. */
export const chatStreamTerminalSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('done'), reply: chatReplySchema }),
  z.object({ type: z.literal('error'), ...chatErrorFieldsSchema.shape }),
]);
export type ChatStreamTerminal = z.infer<typeof chatStreamTerminalSchema>;
