import { connect, type NatsConnection } from 'nats';
import { createOpenAIProvider } from '../../activities/providers/openai';
import { backoffKey, backoffEntrySchema, type BackoffPolicy } from '../../activities/providers/shared-backoff';
import { PROVIDER_BACKOFF_BUCKET, createKvSharedBackoff, type SharedBackoff } from '../../activities/providers/shared-backoff-kv';
import { ProviderError, type ProviderChunk, type ProviderRequest } from '../../activities/providers/types';
import { withSharedBackoff } from '../../activities/providers/with-shared-backoff';
import { startTestNats, type TestNats } from '../harness/nats-server';
import { startRateLimitedOpenAI } from '../harness/rate-limited-openai';

/**
 * The shared provider backoff on a real nats-server: windows set and only ever extended by concurrent
 * writers on separate connections (as separate workers), recovery one request at a time, expiry, no
 * key in the bucket, NATS down → requests pass; and wrapped around the real OpenAI adapter against a
 * server that counts requests: after one refusal the next request on the key is not sent at all.
 */
let nats: TestNats;
const connections: NatsConnection[] = [];
const SECRET = 'sk-test-SECRET-key-never-stored-31337';
// Short windows so the test waits little; the rules are the default ones otherwise.
const policy: BackoffPolicy = { baseMs: 400, capMs: 2_000, paceMs: 300, minRecoveryMs: 600, maxRecoveryMs: 1_000 };

beforeAll(async () => {
  nats = await startTestNats();
}, 30_000);

afterAll(async () => {
  await Promise.all(connections.map((c) => c.close().catch(() => undefined)));
  await nats?.stop();
});

async function worker(extra: Parameters<typeof createKvSharedBackoff>[1] = {}): Promise<SharedBackoff> {
  const nc = await connect({ servers: nats.url });
  connections.push(nc);
  return createKvSharedBackoff(nc, { policy, ...extra });
}

const signal = () => new AbortController().signal;
let n = 0;
const freshKey = () => backoffKey({ provider: 'openai', baseURL: `http://127.0.0.1:${9000 + ++n}/v1`, apiKey: SECRET });

test('a hit opens a window that another worker sees; nothing goes until it ends', async () => {
  const [a, b] = [await worker(), await worker()];
  const key = freshKey();
  expect(await b.admit(key, signal())).toBeUndefined();
  const until = await a.recordHit(key, { kind: 'rate_limited', status: 429, retryAfterMs: 5_000, sentAt: Date.now() - 5 });
  expect(until).toBeGreaterThan(Date.now());
  const wait = await b.admit(key, signal());
  expect(wait).toMatchObject({ until, entry: { kind: 'rate_limited', status: 429, hits: 1 } });
});

test('a window less than a second from its end is waited out inside the step, then the request goes', async () => {
  const [a, b] = [await worker(), await worker()];
  const key = freshKey();
  const until = (await a.recordHit(key, { kind: 'rate_limited', status: 429, retryAfterMs: 400, sentAt: Date.now() }))!;
  expect(await b.admit(key, signal())).toBeUndefined();
  expect(Date.now()).toBeGreaterThanOrEqual(until);
});

test('concurrent writers on separate connections converge on the latest end; a shorter wait never shortens it', async () => {
  const writers = await Promise.all(Array.from({ length: 8 }, () => worker()));
  const key = freshKey();
  const sentAt = Date.now() - 10;
  const waits = [2_900, 3_700, 2_300, 3_200, 3_900, 2_600, 3_100, 2_800];
  await Promise.all(writers.map((w, i) => w.recordHit(key, { kind: 'rate_limited', status: 429, retryAfterMs: waits[i]!, sentAt })));
  const first = await writers[0]!.admit(key, signal());
  expect(first).toBeDefined();
  // The longest wait won, whoever wrote last (allow for the writes' own time after sentAt).
  expect(first!.until).toBeGreaterThanOrEqual(sentAt + 3_900);
  expect(first!.entry.hits).toBe(1);
  const shorter = await writers[3]!.recordHit(key, { kind: 'rate_limited', retryAfterMs: 100, sentAt });
  expect(shorter).toBe(first!.until);
  expect((await writers[5]!.admit(key, signal()))!.until).toBe(first!.until);
});

test('after the window requests go one at a time, a pace apart; then the entry stops holding anyone', async () => {
  const [a, b, c] = [await worker(), await worker(), await worker()];
  const key = freshKey();
  const until = (await a.recordHit(key, { kind: 'overloaded', status: 529, retryAfterMs: 400, sentAt: Date.now() }))!;
  await new Promise((r) => setTimeout(r, until - Date.now() + 20));
  const admitted: string[] = [];
  await Promise.all([a, b, c].map(async (w, i) => {
    expect(await w.admit(key, signal())).toBeUndefined();
    admitted.push(`w${i}@${Date.now()}`);
  }));
  const times = admitted.map((s) => Number(s.split('@')[1])).sort((x, y) => x - y);
  // Three slots, one pace apart from the window's end: the last went at least two paces after it. Measured
  // from the window's end, not from the first admission, whose moment this process may note late on a
  // busy machine (a late note only makes the gap look shorter; the window's end is fixed).
  expect(times).toHaveLength(3);
  expect(times[2]! - until).toBeGreaterThanOrEqual(2 * policy.paceMs - 50);
  // Past recovery the entry is stale: a request goes at once, without taking a slot.
  const raw = await (await kvOf()).get(key);
  const entry = backoffEntrySchema.parse(raw!.json());
  await new Promise((r) => setTimeout(r, entry.until + policy.maxRecoveryMs - Date.now() + 50));
  const before = (await (await kvOf()).get(key))!.revision;
  expect(await c.admit(key, signal())).toBeUndefined();
  expect((await (await kvOf()).get(key))!.revision).toBe(before);
}, 20_000);

test('the bucket names keys by fingerprint: neither its keys nor its values hold the API key', async () => {
  const kv = await kvOf();
  const keys: string[] = [];
  for await (const k of await kv.keys()) keys.push(k);
  expect(keys.length).toBeGreaterThan(0);
  for (const k of keys) {
    expect(k).not.toContain(SECRET);
    expect((await kv.get(k))!.string()).not.toContain(SECRET);
  }
});

test('the real adapter behind the backoff: after one 429 the next request on the key is not sent', async () => {
  const provider = await startRateLimitedOpenAI({ limit: 1, windowMs: 3_000 });
  try {
    const backoff = await worker();
    const adapter = () => withSharedBackoff(createOpenAIProvider({ apiKey: SECRET, baseURL: provider.baseURL }), backoff, { provider: 'openai', baseURL: provider.baseURL, apiKey: SECRET });
    expect((await collect(adapter().stream(req()))).at(-1)).toMatchObject({ type: 'done' });
    const refused = await failure(adapter().stream(req()));
    expect(refused).toMatchObject({ kind: 'rate_limited', status: 429, sharedBackoff: false });
    expect(provider.counts).toEqual({ requests: 2, ok: 1, refused: 1 });
    // Another session (another adapter instance, the same key and URL) waits without sending.
    const waited = await failure(adapter().stream(req()));
    expect(waited).toBeInstanceOf(ProviderError);
    expect(waited).toMatchObject({ kind: 'rate_limited', sharedBackoff: true });
    expect(waited.message).toMatch(/shared backoff.*HTTP 429/);
    expect(waited.retryAfterMs).toBeGreaterThan(0);
    expect(waited.retryAfterMs).toBeLessThanOrEqual(refused.retryAfterMs);
    expect(provider.counts.requests).toBe(2);
    // Once the window is over, the request goes and is answered.
    await new Promise((r) => setTimeout(r, waited.retryAfterMs + 50));
    expect((await collect(adapter().stream(req()))).at(-1)).toMatchObject({ type: 'done' });
    expect(provider.counts).toEqual({ requests: 3, ok: 2, refused: 1 });
  } finally {
    await provider.close();
  }
}, 20_000);

test('a 429 without retry-after: the refused session waits the shared window the key chose, and so does the next', async () => {
  const provider = await startRateLimitedOpenAI({ limit: 0, retryAfter: false });
  const longer = { ...policy, baseMs: 3_000, capMs: 5_000 }; // beyond what is waited out inside the step
  try {
    const backoff = await worker({ policy: longer });
    const adapter = () => withSharedBackoff(createOpenAIProvider({ apiKey: SECRET, baseURL: provider.baseURL }), backoff, { provider: 'openai', baseURL: provider.baseURL, apiKey: SECRET });
    const refused = await failure(adapter().stream(req()));
    expect(refused).toMatchObject({ kind: 'rate_limited', status: 429, sharedBackoff: false });
    expect(refused.message).toMatch(/every session on this key now waits/);
    expect(refused.retryAfterMs).toBeGreaterThanOrEqual(longer.baseMs * 0.8 - 100);
    const waited = await failure(adapter().stream(req()));
    expect(waited).toMatchObject({ sharedBackoff: true });
    expect(waited.retryAfterMs).toBeLessThanOrEqual(refused.retryAfterMs);
    expect(provider.counts).toEqual({ requests: 1, ok: 0, refused: 1 });
  } finally {
    await provider.close();
  }
});

test('NATS down: requests pass and hits are dropped, logged once; back up: the limiter works again', async () => {
  const logs: string[] = [];
  const backoff = await worker({ timeoutMs: 300, cooldownMs: 500, log: (level, m) => logs.push(`${level}: ${m}`) });
  const key = freshKey();
  await nats.kill();
  try {
    expect(await backoff.admit(key, signal())).toBeUndefined();
    expect(await backoff.recordHit(key, { kind: 'rate_limited', retryAfterMs: 5_000, sentAt: Date.now() })).toBeUndefined();
    await new Promise((r) => setTimeout(r, 600)); // past the cool-down: the next calls try NATS again
    expect(await backoff.admit(key, signal())).toBeUndefined();
    expect(logs.filter((l) => l.startsWith('warn'))).toHaveLength(1);
  } finally {
    await nats.start();
  }
  // The client reconnects by itself; within a few cool-downs the limiter answers again.
  let until: number | undefined;
  for (let i = 0; i < 40 && until === undefined; i++) {
    until = await backoff.recordHit(key, { kind: 'rate_limited', retryAfterMs: 5_000, sentAt: Date.now() });
    if (until === undefined) await new Promise((r) => setTimeout(r, 250));
  }
  expect(until).toBeDefined();
  expect(await backoff.admit(key, signal())).toMatchObject({ until });
  expect(logs.at(-1)).toMatch(/^info: .*back/);
}, 30_000);

async function kvOf() {
  return connections[0]!.jetstream().views.kv(PROVIDER_BACKOFF_BUCKET);
}

function req(): ProviderRequest {
  return { model: 'gpt-5-mini', system: 's', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [], thinking_level: 'off', signal: signal() };
}
async function collect(it: AsyncIterable<ProviderChunk>): Promise<ProviderChunk[]> {
  const out: ProviderChunk[] = [];
  for await (const c of it) out.push(c);
  return out;
}
const failure = (it: AsyncIterable<ProviderChunk>): Promise<any> =>
  collect(it).then(
    () => {
      throw new Error('expected the stream to fail');
    },
    (err: unknown) => err,
  );
