import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { streamSSE } from 'hono/streaming';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import { chatStreamFrameSchema } from '../../../contracts/http-events';
import { chatRequestSchema, chatStreamTerminalSchema, statusPayloadSchema, wsEventSchema, type ChatStreamTerminal, type WsEvent } from '../../../contracts/ws-rpc';
import type { Logger } from '../../common/logger';
import type { GatewayAuth } from '../auth/tokens';
import { authMiddleware, principalOf } from '../http/auth-middleware';
import { errorResponse } from '../http/errors';
import { errors, jsonBody, jsonReply, openApiApp, readJsonBody } from '../http/openapi/route-kit';
import { rateLimit } from '../http/rate-limit';
import type { RunningTurns } from '../sessions/running-turns';
import type { SessionService } from '../sessions/session-service';
import { ChatRun } from './chat-run';
import { statusPayload } from './status';
import { encodeTaskId, newRequestKey, newSessionId } from './task-ids';
import { processTasks, type TaskRegistry } from './task-registry';
import { ConnectionLimiter } from '../limits/connection-limiter';
import { DEFAULT_LIMITS } from '../limits/limits-config';
import { ClientOutbox } from '../events/client-outbox';
import { nodeResponseOf } from '../http/events-route';
import { sseStreamSink } from './sse-stream-sink';

export interface RpcHttpDeps {
  sessions: SessionService;
  /** Running turns across sessions, counted in `/v1/status`. */
  turns: RunningTurns;
  auth: GatewayAuth;
  log: Logger;
  keepaliveMs: number;
  maxBodyBytes: number;
  rateLimit: { perSecond: number; burst: number };
  tasks?: TaskRegistry;
  /** Open event streams (shared with the REST event streams, against STRAND_MAX_SSE_CONNECTIONS). */
  sseConnections?: ConnectionLimiter;
  /** Bytes a chat stream may have unsent before its chat reads no further events. */
  maxSendBufferBytes?: number;
  /** How long a chat stream over that bound has to get back to half of it before it is cut as a slow consumer. */
  slowConsumerMs?: number;
}

/** How long a cut chat stream gets to take what was written before its connection is dropped. */
const CUT_GRACE_MS = 1_000;

const tags = ['ws-rpc'];

const status = createRoute({
  method: 'get',
  path: '/v1/status',
  operationId: 'rpcStatus',
  summary: 'Server status for WebSocket RPC clients (docs/websocket.md)',
  description: 'Clients probe it before opening `ws://…/v1/rpc` (the WebSocket itself is not an HTTP route and is described in docs/websocket.md).',
  tags,
  responses: { 200: jsonReply(statusPayloadSchema, 'Status.') },
});

const chatStream = createRoute({
  method: 'post',
  path: '/v1/chat/stream',
  operationId: 'chatStream',
  summary: 'One chat as a server-sent event stream (docs/websocket.md)',
  description:
    "The same chat as `chat.start` over the WebSocket: `data:` frames of chat events, then one terminal `done` or `error` frame. Errors found after the stream started arrive as that frame (a `workspace` the gateway's user may not read or enter: `errorCode` PERMISSION_DENIED). With tokens configured a `sessionId` names a session of the caller's own (scoped per principal: another principal's id is like an unknown one). A client that goes away does not stop the turn.",
  tags,
  middleware: readJsonBody,
  request: { body: jsonBody(chatRequestSchema) },
  responses: {
    200: {
      description: 'The stream (frame `data` objects below).',
      headers: { 'X-Task-Id': { description: 'The durable task id of the turn (for `chat.attach` over the WebSocket).', schema: { type: 'string' } } },
      content: { 'text/event-stream': { schema: chatStreamFrameSchema } },
    },
  },
  ...errors(ErrorCode.UNAVAILABLE),
});

/**
 * The HTTP side of the WebSocket RPC protocol (docs/websocket.md): `GET /v1/status`, which clients
 * probe before anything else, and `POST /v1/chat/stream`, the same chat as one SSE response. Both
 * need the bearer token when tokens are configured. A client that goes away does not stop the turn.
 */
export function rpcHttpRoutes(deps: RpcHttpDeps): OpenAPIHono {
  const tasks = deps.tasks ?? processTasks;
  const app = openApiApp();
  app.use('/v1/*', authMiddleware(deps.auth));
  app.use('/v1/*', rateLimit(deps.rateLimit));
  app.use(
    '/v1/chat/*',
    bodyLimit({
      maxSize: deps.maxBodyBytes,
      onError: (c) => errorResponse(c, new StrandError(ErrorCode.PAYLOAD_TOO_LARGE, `request body exceeds ${deps.maxBodyBytes} bytes`)),
    }),
  );

  app.openapi(status, async (c) => c.json(await statusPayload({ sessions: deps.sessions, turns: deps.turns, tasks }, principalOf(c)), 200));

  const connections = deps.sseConnections ?? new ConnectionLimiter(DEFAULT_LIMITS.maxSseConnections);
  const maxUnsent = deps.maxSendBufferBytes ?? DEFAULT_LIMITS.maxSendBufferBytes;
  const slowConsumerMs = deps.slowConsumerMs ?? DEFAULT_LIMITS.slowConsumerMs;
  app.openapi(chatStream, async (c) => {
    const request = c.req.valid('json');
    const principal = principalOf(c);
    // A session id the client chose is scoped per principal with auth on (SessionService.clientSessionId).
    const sessionId = request.sessionId === undefined ? newSessionId() : await deps.sessions.clientSessionId(request.sessionId, principal);
    const release = connections.tryAcquire('chat_stream');
    if (!release) throw new StrandError(ErrorCode.UNAVAILABLE, `too many event streams open (at most ${connections.max}): try again later`);
    const requestKey = newRequestKey();
    const taskId = encodeTaskId(sessionId, requestKey);
    tasks.set(taskId, 'accepted', principal);
    c.header('Cache-Control', 'no-cache');
    c.header('X-Accel-Buffering', 'no');
    c.header('X-Task-Id', taskId);
    return streamSSE(c, async (stream) => {
      // The one client outbox, as the WebSocket's chats have it: the chat reads no further event while
      // more than the bound is unsent; a client that does not get back to half of it in time (or lets
      // unsent status and terminal frames pass twice the bound) is cut. Its turn goes on: chat.attach
      // over the WebSocket or task.status tell the rest. No last words: the stream just ends, as before.
      const out = new ClientOutbox(
        sseStreamSink(stream, nodeResponseOf(c)),
        { maxUnsentBytes: maxUnsent, slowConsumerMs, hardLimitBytes: 2 * maxUnsent, keepalive: { everyMs: deps.keepaliveMs, frame: ': keepalive\n\n' }, graceMs: CUT_GRACE_MS },
        () => undefined,
        (reason) => {
          deps.log.warn({ taskId, reason }, 'chat stream cut: slow consumer');
          run.detach();
        },
      );
      const data = (frame: WsEvent | ChatStreamTerminal) => out.send(`data: ${JSON.stringify(frame)}\n\n`);
      const sessions = deps.sessions.paced(() => out.ready());
      const run = new ChatRun({ sessions, log: deps.log }, { sessionId, requestKey, principal }, {
        started: () => {
          tasks.set(taskId, 'running');
          data({ type: 'status', state: { kind: 'running' } });
        },
        event: (event) => {
          const parsed = wsEventSchema.safeParse(event);
          if (parsed.success) data(parsed.data);
          else deps.log.error({ type: event.type, issues: parsed.error.issues.slice(0, 5) }, 'a chat event did not match the protocol');
        },
        terminal: (t) => {
          tasks.set(taskId, t.type === 'done' ? 'completed' : t.errorCode === 'ABORTED' ? 'cancelled' : 'failed');
          const parsed = chatStreamTerminalSchema.safeParse(t);
          if (!parsed.success) deps.log.error({ issues: parsed.error.issues.slice(0, 5) }, 'a chat reply did not match the protocol');
          data(parsed.success ? parsed.data : { type: 'error', errorMessage: 'internal error: the reply did not match the protocol (see the gateway log)', errorCode: ErrorCode.INTERNAL });
        },
      });
      stream.onAbort(() => {
        run.detach();
        release();
      });
      try {
        data({ type: 'status', state: { kind: 'accepted' } });
        await run.start(request);
      } finally {
        // Frames already written still go out: Hono closes the stream after them.
        out.close();
        release();
      }
    });
  });
  return app;
}
