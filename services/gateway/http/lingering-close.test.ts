import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { rawExchange } from '../../../test/harness/raw-http';
import { upload, type UploadPlan } from '../../../test/harness/raw-upload';
import type { LingeringCloseLimits } from './lingering-close';
import { drainUnreadBody } from './unread-body';

/**
 * The lingering close on a real @hono/node-server with Hono's body limit, as the gateway runs it: a
 * body far over the limit is answered 413 with `Connection: close`, the rest is read and dropped so
 * a client that sends its whole body before reading gets the answer, and a client that never stops
 * is cut at the time or byte bound, leaving no connection behind.
 */
const LIMIT = 1024 * 1024;
const servers: ServerType[] = [];
let served = 0;

async function start(linger: LingeringCloseLimits): Promise<{ base: string; server: ServerType }> {
  const app = new Hono();
  app.use('*', bodyLimit({ maxSize: LIMIT, onError: (c) => c.json({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'too large', details: {} } }, 413) }));
  app.post('/count', (c) => {
    served++;
    return c.json({ served });
  });
  const fetch = drainUnreadBody(app.fetch, { maxDrainBytes: 2 * LIMIT, maxDrainMs: 5_000, linger });
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  servers.push(server);
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

/** Open connections of a server, once it has had a moment to see its peers go. */
async function connectionsLeft(server: ServerType): Promise<number> {
  for (let i = 0; ; i++) {
    const n = await new Promise<number>((resolve) => server.getConnections((_err, count) => resolve(count)));
    if (n === 0 || i >= 100) return n;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const plan = (over: Partial<UploadPlan>): UploadPlan => ({
  head: 'POST /count HTTP/1.1\r\nHost: x\r\nContent-Type: application/json',
  framing: 'content-length',
  bytes: 16 * LIMIT,
  pace: 'flat-out',
  read: 'after-sending',
  giveUpMs: 20_000,
  ...over,
});

describe.each(['content-length', 'chunked'] as const)('a body 16 times the limit (%s), sent whole before the client reads', (framing) => {
  test('is answered 413 with its JSON body and Connection: close, then closed in order, three times out of three', async () => {
    const { base, server } = await start({ maxMs: 10_000, maxBytes: 256 * LIMIT });
    const before = served;
    for (let run = 0; run < 3; run++) {
      const out = await upload(base, plan({ framing }));
      expect([out.ending, out.sentAll, out.response?.status, out.response?.headers.connection]).toEqual(['closed', true, 413, 'close']);
      expect(JSON.parse(out.response!.body)).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'too large', details: {} } });
    }
    expect(served).toBe(before);
    expect(await connectionsLeft(server)).toBe(0);
  }, 60_000);
});

test('a client that never stops sending is cut at the time bound, after it got the 413', async () => {
  const { base, server } = await start({ maxMs: 300, maxBytes: 1024 * LIMIT });
  const out = await upload(base, plan({ bytes: 'endless', pace: { pauseMs: 20 }, pieceBytes: 16 * 1024, read: 'while-sending' }));
  expect([out.ending, out.response?.status, out.response?.headers.connection]).toEqual(['reset', 413, 'close']);
  expect(await connectionsLeft(server)).toBe(0);
}, 30_000);

test('a client that never stops sending is cut at the byte bound, long before the time bound', async () => {
  // The time bound is beyond this test's timeout: only the byte bound can end the upload.
  const { base, server } = await start({ maxMs: 10 * 60_000, maxBytes: 8 * LIMIT });
  const out = await upload(base, plan({ bytes: 'endless', read: 'while-sending' }));
  expect([out.ending, out.response?.status]).toEqual(['reset', 413]);
  expect(out.sentBytes).toBeGreaterThan(8 * LIMIT);
  expect(await connectionsLeft(server)).toBe(0);
}, 30_000);

test('a request sent on the connection after the one answered with Connection: close is not served', async () => {
  const { base } = await start({ maxMs: 10_000, maxBytes: 256 * LIMIT });
  const before = served;
  const request = (body: string) => `POST /count HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
  // Both in one write: the second request follows the first body's last byte.
  const { data, closed } = await rawExchange(base, request('x'.repeat(4 * LIMIT)) + request('{}'), 20_000);
  expect(closed).toBe(true);
  expect(data.toString('latin1').match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 413']);
  expect(served).toBe(before);
}, 30_000);
