import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { serve, type ServerType } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import pino from 'pino';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import { connectRaw } from '../../../test/harness/raw-http';
import { httpErrorHandler } from './error-handler';

/**
 * Log levels of the HTTP error handler: a client that drops its request body mid-upload is logged at
 * debug only (it used to be "unhandled error: aborted" at error level); real failures stay at error
 * level. The errors are the real ones, from a real @hono/node-server request whose client went away.
 *
 * The route hands its error to the handler itself: in the gateway Hono's `onError` does, but under
 * Jest Node's stream errors come from another realm, fail Hono's `instanceof Error` and never reach
 * `onError` (test/e2e/limits.test.ts checks the gateway's real log for the same drop).
 */
const lines: Array<{ level: number; msg: string; err?: { message?: string } }> = [];
const log = pino({ level: 'debug' }, new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk))), done()) }));
const handler = httpErrorHandler(log);
const DEBUG = 20;
const ERROR = 50;
let server: ServerType;
let base: string;

beforeAll(async () => {
  const app = new Hono();
  const readBody = async (c: Context) => {
    try {
      return c.json({ length: (await c.req.text()).length });
    } catch (err) {
      return handler(err as Error, c);
    }
  };
  app.post('/upload', readBody);
  app.get('/bug', (c) => handler(new Error('a bug'), c));
  // A backend connection reset while the client is still there: a real error, whatever it looks like.
  app.get('/backend-reset', (c) => handler(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }), c));
  app.get('/transcript', (c) =>
    handler(new StrandError(ErrorCode.TRANSCRIPT_ERROR, 'the transcript could not be written', {}, { cause: Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' }) }), c),
  );
  app.get('/unavailable', (c) => handler(new StrandError(ErrorCode.UNAVAILABLE, 'Temporal did not answer: 14 UNAVAILABLE: connection refused'), c));
  server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => server.close());

const until = async (what: () => boolean, ms = 3_000) => {
  const deadline = Date.now() + ms;
  while (!what() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
};

test.each([
  ['chunked', 'Transfer-Encoding: chunked\r\n\r\n40\r\n{"text":"a body cut short'],
  ['with a length', 'Content-Length: 100000\r\n\r\n{"text":"a body cut short'],
])('a client that drops its request body mid-upload (%s) is logged at debug, not as an error', async (_what, rest) => {
  lines.length = 0;
  const socket = await connectRaw(base);
  socket.write(`POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${rest}`);
  await new Promise((r) => setTimeout(r, 100));
  socket.destroy();
  await until(() => lines.length > 0);
  expect(lines).toEqual([expect.objectContaining({ level: DEBUG, msg: 'the client went away before its request was read', reason: 'aborted' })]);
});

test('real failures stay at error level: an unforeseen error, a backend reset with the client still there, a transcript failure', async () => {
  lines.length = 0;
  for (const route of ['/bug', '/backend-reset']) {
    const res = await fetch(`${base}${route}`);
    expect([res.status, ((await res.json()) as any).error]).toEqual([500, { code: 'INTERNAL', message: 'internal error (see the gateway log)', details: {} }]);
  }
  const transcript = await fetch(`${base}/transcript`);
  expect([transcript.status, ((await transcript.json()) as any).error]).toEqual([500, { code: 'TRANSCRIPT_ERROR', message: 'the transcript could not be written', details: {} }]);
  expect(lines.map((l) => [l.level, l.msg])).toEqual([
    [ERROR, 'unhandled error'],
    [ERROR, 'unhandled error'],
    [ERROR, 'a transcript could not be produced or written'],
  ]);
  // The cause (with its code) is in the log, not in the answer.
  expect(lines[2]!.err?.message).toContain('EACCES');
});

test('a 503 is logged at warn with the reason the client was given (an infrastructure fault, not a bug)', async () => {
  lines.length = 0;
  const res = await fetch(`${base}/unavailable`);
  expect(res.status).toBe(503);
  expect(lines).toEqual([expect.objectContaining({ level: 40, msg: 'answered 503 UNAVAILABLE', path: '/unavailable', method: 'GET', reason: 'Temporal did not answer: 14 UNAVAILABLE: connection refused' })]);
});
