import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { connectRaw } from '../../../test/harness/raw-http';
import { drainUnreadBody } from './unread-body';

/**
 * The gateway's fetch wrapper on a real @hono/node-server with Hono's body limit, as the gateway runs
 * it: an answer given before the body was read (401, 413) goes out at once, and the same keep-alive
 * connection answers the next request.
 */
let server: ServerType;
let base: string;

beforeAll(async () => {
  const app = new Hono();
  app.use('*', bodyLimit({ maxSize: 1024 * 1024, onError: (c) => c.json({ error: 'too large' }, 413) }));
  app.post('/early', (c) => c.json({ error: 'no' }, 401));
  app.get('/ok', (c) => c.text('ok'));
  server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: drainUnreadBody(app.fetch, { maxDrainBytes: 4 * 1024 * 1024, maxDrainMs: 5_000 }), hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => server.close());

/** Sends a POST with a body of `size` bytes and then a GET on the same connection; the answers and how long the first took. */
async function earlyAnswerThenNext(size: number): Promise<{ statuses: string[]; firstMs: number }> {
  const socket = await connectRaw(base);
  let data = '';
  socket.on('data', (d: Buffer) => (data += d.toString('latin1')));
  const t0 = Date.now();
  socket.write(`POST /early HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: ${size}\r\n\r\n${'x'.repeat(size)}`);
  while (!/HTTP\/1\.1 \d{3}/.test(data) && Date.now() - t0 < 8_000) await new Promise((r) => setTimeout(r, 5));
  const firstMs = Date.now() - t0;
  socket.write('GET /ok HTTP/1.1\r\nHost: x\r\n\r\n');
  const t1 = Date.now();
  while ((data.match(/HTTP\/1\.1 \d{3}/g) ?? []).length < 2 && Date.now() - t1 < 3_000) await new Promise((r) => setTimeout(r, 5));
  socket.destroy();
  return { statuses: (data.match(/HTTP\/1\.1 \d{3}/g) ?? []).map((s) => s.slice(-3)), firstMs };
}

test.each([200_000, 900_000])('an early 401 to a %i-byte body is answered at once and the connection stays usable', async (size) => {
  const { statuses, firstMs } = await earlyAnswerThenNext(size);
  expect(statuses).toEqual(['401', '200']);
  expect(firstMs).toBeLessThan(2_000);
});

test('a 413 for a body over the limit (within what is drained) leaves the connection usable too', async () => {
  const { statuses, firstMs } = await earlyAnswerThenNext(1_100_000);
  expect(statuses).toEqual(['413', '200']);
  expect(firstMs).toBeLessThan(2_000);
});
