import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startRateLimitedOpenAI, type RateLimitedOpenAI } from '../harness/rate-limited-openai';
import { openSse, readUntil, type SseEvent } from '../harness/sse-client';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * One backoff per provider key, end to end: the real stack, the real OpenAI SDK in the worker, a local
 * server that allows 2 requests per 8 s window and refuses the rest with 429 + retry-after. Two sessions
 * on the same key: the first's 429 opens the key's window, and the second waits it out without
 * sending anything (the server counts requests), announced as a retry naming the shared backoff; when
 * the window ends both turns finish, and the server refused exactly one request.
 */
const KEY = 'sk-e2e-shared-key';
const WINDOW_MS = 8_000;
let stack: TestStack;
let provider: RateLimitedOpenAI;
let base: string;
let workspace: string;

beforeAll(async () => {
  provider = await startRateLimitedOpenAI({ limit: 2, windowMs: WINDOW_MS });
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-e2e-backoff-'));
  stack = await startTestStack({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: provider.baseURL, STRAND_DEFAULT_MODEL: 'openai/gpt-5-mini' });
  base = stack.urls.gateway;
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
  await provider?.close();
  fs.rmSync(workspace, { recursive: true, force: true });
}, 60_000);

const data = (e: SseEvent) => JSON.parse(e.data);
const finished = (e: SseEvent) => e.event === 'turn.finished';
/** The prompt a request to the provider carries (its last user message). */
const promptOf = (body: any): string => JSON.stringify(body?.messages?.at(-1)?.content ?? '');

async function session(): Promise<string> {
  const res = await http(base, 'POST', '/api/sessions', { project_path: workspace });
  expect(res.status).toBe(201);
  return res.body.session_id;
}

async function useUpTheWindow() {
  // Another client of the same key spends the window's allowance (2 requests) directly.
  for (let i = 0; i < 2; i++) {
    const res = await fetch(`${provider.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-5-mini', stream: true, messages: [{ role: 'user', content: 'elsewhere' }] }),
    });
    expect(res.status).toBe(200);
    await res.text();
  }
}

test("the first session's 429 makes the second wait without sending; both finish", async () => {
  await useUpTheWindow();
  const [a, b] = [await session(), await session()];
  const [eventsA, eventsB] = [await openSse(`${base}/api/sessions/${a}/events`), await openSse(`${base}/api/sessions/${b}/events`)];

  expect((await http(base, 'POST', `/api/sessions/${a}/prompt`, { text: 'first session asks' })).status).toBe(202);
  const untilRetryA = await readUntil(eventsA, (e) => e.event === 'retry');
  const retryA = data(untilRetryA.at(-1)!);
  expect(retryA.reason).toMatch(/429/);
  expect(provider.counts).toEqual({ requests: 3, ok: 2, refused: 1 });

  expect((await http(base, 'POST', `/api/sessions/${b}/prompt`, { text: 'second session asks' })).status).toBe(202);
  const untilRetryB = await readUntil(eventsB, (e) => e.event === 'retry');
  const retryB = data(untilRetryB.at(-1)!);
  expect(retryB.reason).toMatch(/shared backoff/);
  expect(retryB.delay_ms).toBeGreaterThan(0);
  expect(retryB.attempt).toBe(1);
  // B's wait was decided without a request: the server still counts A's refusal as the last one.
  expect(provider.counts).toEqual({ requests: 3, ok: 2, refused: 1 });

  const restA = await readUntil(eventsA, finished, WINDOW_MS + 30_000);
  const restB = await readUntil(eventsB, finished, WINDOW_MS + 30_000);
  eventsA.close();
  eventsB.close();
  expect(data(restA.at(-1)!)).toMatchObject({ outcome: 'done' });
  expect(data(restB.at(-1)!)).toMatchObject({ outcome: 'done' });
  // The window's end let both through: one refusal in all, one answered request per session after it.
  expect(provider.counts).toEqual({ requests: 5, ok: 4, refused: 1 });
  const sent = provider.server.requests.map((r) => promptOf(r.body));
  expect(sent.filter((p) => p.includes('second session asks'))).toHaveLength(1);
  expect(sent.filter((p) => p.includes('first session asks'))).toHaveLength(2);
  expect(sent.findIndex((p) => p.includes('second session asks'))).toBeGreaterThan(2);
  const stored = (await http(base, 'GET', `/api/sessions/${b}/messages`)).body.messages;
  expect(stored.at(-1).message.content).toEqual([{ type: 'text', text: 'Answered within the limit.' }]);
}, 90_000);
