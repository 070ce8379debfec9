import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { connectRaw, parseResponse } from '../../../test/harness/raw-http';
import { drainUnreadBody } from './unread-body';

/**
 * The gateway's fetch wrapper on a real @hono/node-server with Hono's body limit, as the gateway runs
 * it: an answer given before the body was read (401, 413) goes out once the rest of the body has been
 * read, without `Connection: close`, and the same keep-alive connection answers the next request.
 * (Bodies beyond what is read first: lingering-close.test.ts.)
 */
let server: ServerType;
let base: string;

beforeAll(async () => {
  const app = new Hono();
  app.use('*', bodyLimit({ maxSize: 1024 * 1024, onError: (c) => c.json({ error: 'too large' }, 413) }));
  app.post('/early', (c) => c.json({ error: 'no' }, 401));
  app.get('/ok', (c) => c.text('ok'));
  server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: drainUnreadBody(app.fetch, { maxDrainBytes: 4 * 1024 * 1024, maxDrainMs: 5_000, linger: { maxMs: 5_000, maxBytes: 64 * 1024 * 1024 } }), hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => server.close());

/**
 * Sends a POST with a body of `size` bytes and then a GET on the same connection: the statuses
 * answered and the first answer's Connection header. A body that stalled the wrapper would be given
 * up on after maxDrainMs: its answer would then say `Connection: close` and the GET go unanswered.
 */
async function earlyAnswerThenNext(size: number): Promise<{ statuses: string[]; firstConnection: string | undefined }> {
  const socket = await connectRaw(base);
  let data = '';
  socket.on('data', (d: Buffer) => (data += d.toString('latin1')));
  const statuses = () => (data.match(/HTTP\/1\.1 \d{3}/g) ?? []).map((s) => s.slice(-3));
  const until = async (done: () => boolean) => {
    for (let i = 0; i < 1_000 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
  };
  socket.write(`POST /early HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: ${size}\r\n\r\n${'x'.repeat(size)}`);
  await until(() => parseResponse(Buffer.from(data, 'latin1')) !== undefined);
  const firstConnection = parseResponse(Buffer.from(data, 'latin1'))?.headers.connection;
  socket.write('GET /ok HTTP/1.1\r\nHost: x\r\n\r\n');
  await until(() => statuses().length >= 2 || socket.destroyed);
  socket.destroy();
  return { statuses: statuses(), firstConnection };
}

test.each([200_000, 900_000])('an early 401 to a %i-byte body leaves the connection usable: no Connection: close, the next request answered', async (size) => {
  expect(await earlyAnswerThenNext(size)).toEqual({ statuses: ['401', '200'], firstConnection: expect.not.stringMatching(/close/i) });
});

test('a 413 for a body over the limit (within what is drained) leaves the connection usable too', async () => {
  expect(await earlyAnswerThenNext(1_100_000)).toEqual({ statuses: ['413', '200'], firstConnection: expect.not.stringMatching(/close/i) });
});

test('a 413 for a body declared larger than what is drained says Connection: close, and the connection is not reused', async () => {
  expect(await earlyAnswerThenNext(5 * 1024 * 1024)).toEqual({ statuses: ['413'], firstConnection: 'close' });
});
