import { z } from 'zod';
import { ErrorCode as E } from '../../../../contracts/errors';
import { chatStreamFrameSchema } from '../../../../contracts/http-events';
import { healthyReplySchema, unhealthyReplySchema } from '../../../../contracts/http-replies';
import { chatRequestSchema, statusPayloadSchema } from '../../../../contracts/ws-rpc';
import { DOCS_ASSET_NAMES } from './docs-page';
import type { RouteDoc } from './route-doc';

const json = 'application/json';

/** What `/api/openapi.json` answers: this document (its own shape is OpenAPI 3.1's). */
const openApiDocumentSchema = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.unknown()),
});

const CACHE_HEADERS = { ETag: 'Content hash; send it back in If-None-Match to get 304.', 'Cache-Control': 'How long the body may be cached.' };

/** The health check, the HTTP side of the WebSocket RPC protocol, and this document with its viewer. */
export const serviceRouteDocs: RouteDoc[] = [
  {
    method: 'get',
    path: '/healthz',
    operationId: 'health',
    summary: 'Whether Temporal, NATS and the session store answer',
    tag: 'service',
    public: true,
    replies: {
      200: { description: 'Everything answers.', content: { [json]: healthyReplySchema } },
      503: { description: 'Something does not answer (named in `missing`).', content: { [json]: unhealthyReplySchema } },
    },
    errors: [],
  },
  {
    method: 'get',
    path: '/v1/status',
    operationId: 'rpcStatus',
    summary: 'Server status for WebSocket RPC clients (specs/ws-rpc.md)',
    description: 'Clients probe it before opening `ws://…/v1/rpc` (the WebSocket itself is not an HTTP route and is described in specs/ws-rpc.md).',
    tag: 'ws-rpc',
    replies: { 200: { description: 'Status.', content: { [json]: statusPayloadSchema } } },
    errors: [],
  },
  {
    method: 'post',
    path: '/v1/chat/stream',
    operationId: 'chatStream',
    summary: 'One chat as a server-sent event stream (specs/ws-rpc.md)',
    description:
      "The same chat as `chat.start` over the WebSocket: `data:` frames of chat events, then one terminal `done` or `error` frame. Errors found after the stream started arrive as that frame (a `workspace` the gateway's user may not read or enter: `errorCode` PERMISSION_DENIED). With tokens configured a `sessionId` names a session of the caller's own (scoped per principal: another principal's id is like an unknown one). A client that goes away does not stop the turn.",
    tag: 'ws-rpc',
    body: chatRequestSchema,
    replies: {
      200: {
        description: 'The stream (frame `data` objects below).',
        content: { 'text/event-stream': chatStreamFrameSchema },
        headers: { 'X-Task-Id': 'The durable task id of the turn (for `chat.attach` over the WebSocket).' },
      },
    },
    errors: [E.UNAVAILABLE],
  },
  {
    method: 'get',
    path: '/api/openapi.json',
    operationId: 'openApiDocument',
    summary: 'This document',
    tag: 'service',
    public: true,
    replies: {
      200: { description: 'OpenAPI 3.1, built once when the gateway starts.', content: { [json]: openApiDocumentSchema }, headers: CACHE_HEADERS },
      304: { description: 'Not modified (If-None-Match matched).' },
    },
    errors: [],
  },
  {
    method: 'get',
    path: '/api/docs',
    operationId: 'docsPage',
    summary: 'This document in Swagger UI',
    description: 'Served with its assets by the gateway; the page reaches nothing but the gateway.',
    tag: 'service',
    public: true,
    replies: {
      200: { description: 'The page.', content: { 'text/html': 'text' }, headers: CACHE_HEADERS },
      304: { description: 'Not modified (If-None-Match matched).' },
    },
    errors: [],
  },
  {
    method: 'get',
    path: '/api/docs/:asset',
    operationId: 'docsAsset',
    summary: "The docs page's scripts, styles and icons",
    tag: 'service',
    public: true,
    params: { asset: 'A file the page loads.' },
    paramSchemas: { asset: z.enum(DOCS_ASSET_NAMES as [string, ...string[]]) },
    replies: {
      200: { description: 'The file.', content: { 'text/css': 'text', 'text/javascript': 'text', 'image/png': 'binary' }, headers: CACHE_HEADERS },
      304: { description: 'Not modified (If-None-Match matched).' },
    },
    errors: [E.INVALID_REQUEST],
  },
];
