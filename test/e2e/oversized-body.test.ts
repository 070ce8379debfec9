import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { upload, type UploadOutcome, type UploadPlan } from '../harness/raw-upload';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * A body far over the gateway's limit (issue 21: a 64 MiB prompt), against the real stack with its
 * default limits (10 MiB bodies; lingering close 5 s / 256 MiB): the gateway answers 413
 * PAYLOAD_TOO_LARGE with its JSON body and `Connection: close`, reads and drops the rest, and only
 * then closes — so every client reads the whole answer, also one that writes all 64 MiB before it
 * reads, and one that never stops sending is cut at the bound with nothing left open on the gateway.
 */
const MiB = 1024 * 1024;
const RUNS = 5;

let stack: TestStack;
let base: string;
let promptHead: string;
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-oversized-'));

beforeAll(async () => {
  stack = await startTestStack();
  base = stack.urls.gateway;
  const created = await http(base, 'POST', '/api/sessions', { project_path: workspace });
  expect(created.status).toBe(201);
  promptHead = `POST /api/sessions/${created.body.session_id as string}/prompt HTTP/1.1\r\nHost: x\r\nContent-Type: application/json`;
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
  fs.rmSync(workspace, { recursive: true, force: true });
}, 60_000);

const prompt = (over: Partial<UploadPlan>): UploadPlan => ({
  head: promptHead,
  framing: 'content-length',
  bytes: 64 * MiB,
  pace: 'flat-out',
  read: 'after-sending',
  giveUpMs: 60_000,
  ...over,
});

/** The contract's 413: status, JSON error body, and the connection not kept for another request. */
function expectCompleteTooLarge(out: UploadOutcome): void {
  expect([out.response?.status, out.response?.headers['content-type'], out.response?.headers.connection]).toEqual([413, expect.stringMatching(/^application\/json/), 'close']);
  const body = JSON.parse(out.response!.body);
  expect(body).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: expect.any(String), details: {} } });
  expect(Buffer.byteLength(out.response!.body)).toBe(Number(out.response!.headers['content-length']));
}

/** TCP states (Linux /proc/net/tcp) in which the gateway still holds a connection: all but TIME_WAIT and CLOSE. */
const HELD = new Set(['01', '02', '03', '04', '05', '08', '09', '0B']);

/** Whether the gateway still holds the connection from the client's port `clientPort`. */
function gatewayHolds(clientPort: number): boolean {
  const gatewayPort = Number(new URL(base).port);
  const hex = (p: number) => p.toString(16).toUpperCase().padStart(4, '0');
  return ['/proc/net/tcp', '/proc/net/tcp6'].some((file) =>
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .some(([, local, remote, state]) => local?.endsWith(`:${hex(gatewayPort)}`) && remote?.endsWith(`:${hex(clientPort)}`) && HELD.has(state ?? '')),
  );
}

async function expectReleased(clientPort: number): Promise<void> {
  for (let i = 0; i < 200 && gatewayHolds(clientPort); i++) await new Promise((r) => setTimeout(r, 25));
  expect(gatewayHolds(clientPort)).toBe(false);
}

const whole: Array<[string, Partial<UploadPlan>]> = [
  ['(a) 64 MiB with Content-Length, written as fast as the socket takes it, read only after the last byte', {}],
  ['(b) 64 MiB with Content-Length, written slowly (1 MiB pieces with a pause after each), read only after the last byte', { pace: { pauseMs: 10 }, pieceBytes: MiB }],
  ['(c) 64 MiB chunked (no Content-Length), over the limit mid-stream, read only after the last chunk', { framing: 'chunked' }],
];

test.each(whole)(`%s: the client reads the complete 413 and its JSON body, then the gateway's orderly close, ${RUNS} runs out of ${RUNS}`, async (_name, over) => {
  for (let run = 0; run < RUNS; run++) {
    const out = await upload(base, prompt(over));
    expect([run, out.ending, out.error, out.sentAll]).toEqual([run, 'closed', undefined, true]);
    expectCompleteTooLarge(out);
    await expectReleased(out.localPort);
  }
}, 240_000);

const endless: Array<[string, Partial<UploadPlan>]> = [
  ['(d) flat out, with a Content-Length it never reaches', { bytes: 'endless' }],
  ['(d) trickling 16 KiB pieces, with a Content-Length it never reaches', { bytes: 'endless', pace: { pauseMs: 20 }, pieceBytes: 16 * 1024 }],
  ['(d) flat out, chunked', { bytes: 'endless', framing: 'chunked' }],
];

test.each(endless)('a client that never stops sending, %s: it gets the 413, then the gateway cuts it at the bound and holds nothing of it', async (_name, over) => {
  const out = await upload(base, prompt({ ...over, read: 'while-sending' }));
  expect([out.ending, out.sentAll]).toEqual(['reset', false]);
  expectCompleteTooLarge(out);
  await expectReleased(out.localPort);
  // The gateway is as it was: it answers the next request.
  expect((await http(base, 'GET', '/healthz')).status).toBe(200);
}, 120_000);
