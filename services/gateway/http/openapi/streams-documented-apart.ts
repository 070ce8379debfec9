import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { ErrorCode as E } from '../../../../contracts/errors';
import { eventsAfterSchema, eventsQuerySchema } from '../../../../contracts/http-api';
import { chatStreamFrameSchema, httpEventDataSchema } from '../../../../contracts/http-events';
import { chatRequestSchema, statusPayloadSchema } from '../../../../contracts/ws-rpc';
import { errors, jsonBody, jsonReply, SESSION_READ, sessionIdParams } from './route-kit';

/**
 * NOT YET FROM THEIR OWN DEFINITION: `GET /api/sessions/{id}/events` (../events-route.ts) and the
 * WebSocket protocol's `/v1/status` and `/v1/chat/stream` (../../ws/http-routes.ts) were being
 * changed by someone else when the other routes moved to `createRoute`; they are still plain Hono
 * routes and are documented here, apart, until they move too. The document test still checks that
 * the document lists exactly the routes the app serves.
 */
const EVENTS_DESCRIPTION = `Server-sent events. Each frame is \`id: <seq>\`, \`event: <type>\` and one \`data:\` line of compact JSON
whose \`type\` equals the \`event:\` name; the schema below is the union of those \`data\` objects. \`seq\` is the
session's monotonic event sequence: reconnecting with \`Last-Event-ID\` (or \`?after=\`) first delivers every event
after it, then live ones, with no gap and no duplicate. Without a cursor the stream starts with the events of the
turn in progress, if any. A \`: keepalive\` comment goes out every 15 s. Past STRAND_MAX_SSE_CONNECTIONS open streams:
503 UNAVAILABLE.`;

const ROUTES = [
  createRoute({
    method: 'get',
    path: '/api/sessions/{id}/events',
    operationId: 'sessionEvents',
    summary: "The session's event stream",
    description: EVENTS_DESCRIPTION,
    tags: ['events'],
    request: {
      params: sessionIdParams,
      query: eventsQuerySchema,
      headers: z.object({ 'Last-Event-ID': eventsAfterSchema.optional().describe('Resume after this sequence (wins over `?after=`).') }),
    },
    responses: { 200: { description: 'The stream (frame `data` objects below).', content: { 'text/event-stream': { schema: httpEventDataSchema } } } },
    ...errors(E.INVALID_REQUEST, ...SESSION_READ),
  }),
  createRoute({
    method: 'get',
    path: '/v1/status',
    operationId: 'rpcStatus',
    summary: 'Server status for WebSocket RPC clients (specs/ws-rpc.md)',
    description: 'Clients probe it before opening `ws://…/v1/rpc` (the WebSocket itself is not an HTTP route and is described in specs/ws-rpc.md).',
    tags: ['ws-rpc'],
    responses: { 200: jsonReply(statusPayloadSchema, 'Status.') },
  }),
  createRoute({
    method: 'post',
    path: '/v1/chat/stream',
    operationId: 'chatStream',
    summary: 'One chat as a server-sent event stream (specs/ws-rpc.md)',
    description:
      "The same chat as `chat.start` over the WebSocket: `data:` frames of chat events, then one terminal `done` or `error` frame. Errors found after the stream started arrive as that frame (a `workspace` the gateway's user may not read or enter: `errorCode` PERMISSION_DENIED). With tokens configured a `sessionId` names a session of the caller's own (scoped per principal: another principal's id is like an unknown one). A client that goes away does not stop the turn.",
    tags: ['ws-rpc'],
    request: { body: jsonBody(chatRequestSchema) },
    responses: {
      200: {
        description: 'The stream (frame `data` objects below).',
        headers: { 'X-Task-Id': { description: 'The durable task id of the turn (for `chat.attach` over the WebSocket).', schema: { type: 'string' } } },
        content: { 'text/event-stream': { schema: chatStreamFrameSchema } },
      },
    },
    ...errors(E.UNAVAILABLE),
  }),
];

/** Adds the routes above to the app's document (they are served by the plain Hono apps named above). */
export function documentStreamsApart(app: OpenAPIHono): void {
  for (const route of ROUTES) app.openAPIRegistry.registerPath(route);
}
