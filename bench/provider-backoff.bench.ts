import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack } from '../infra/stack/stack';
import { startRateLimitedOpenAI } from '../test/harness/rate-limited-openai';
import { openSse, type SseConnection } from '../test/harness/sse-client';
import { intFrom } from './env-int';
import { nowMs } from './stats';

/**
 * One backoff per provider key (issue 20), measured: SESSIONS sessions prompt at once, all on one
 * OpenAI key, against a local server speaking OpenAI's streaming format that allows LIMIT requests per
 * WINDOW_MS (a minute) and answers the rest 429 with retry-after (BENCH_RETRY_AFTER=0: without it).
 * Run twice in the same run, each on a fresh stack and a fresh server: with the shared backoff, and
 * with it disabled (STRAND_PROVIDER_BACKOFF=off, every session backing off alone) as the baseline.
 * Per run: the 429s the server sent (the bar: ≤ SESSIONS + LIMIT), requests, turns finished and failed
 * (the bar: 0 failed), retries announced (and how many were shared-backoff waits), and the time until
 * every turn had ended. Run: `npm run bench:backoff` (BENCH_BACKOFF_BASELINE=0 skips the baseline).
 */
const SESSIONS = intFrom(process.env, 'BENCH_SESSIONS', 20, 1);
const LIMIT = intFrom(process.env, 'BENCH_LIMIT', 5, 1);
const WINDOW_MS = intFrom(process.env, 'BENCH_WINDOW_MS', 60_000, 1_000);
const RETRY_AFTER = process.env.BENCH_RETRY_AFTER !== '0';
const BASELINE = process.env.BENCH_BACKOFF_BASELINE !== '0';
const MODEL = 'openai/gpt-5-mini';
const KEY = 'bench-shared-key';
const progress = (what: string) => console.error(`[bench] ${what}`);
const round = (x: number) => +x.toFixed(1);

async function post(base: string, route: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${route}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

interface TurnOutcome {
  outcome: string;
  retries: number;
  sharedWaits: number;
  endedAt: number;
}

/** Reads the session's events until its turn ends. */
async function follow(events: SseConnection, timeoutMs: number): Promise<TurnOutcome> {
  let retries = 0;
  let sharedWaits = 0;
  for (;;) {
    const e = await events.next(timeoutMs);
    if (!e) throw new Error('event stream ended before the turn did');
    if (e.event === 'retry') {
      retries += 1;
      if (/shared backoff/.test(String(JSON.parse(e.data).reason))) sharedWaits += 1;
    }
    if (e.event === 'turn.finished') return { outcome: String(JSON.parse(e.data).outcome), retries, sharedWaits, endedAt: nowMs() };
  }
}

async function run(limiter: boolean) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-bench-backoff-'));
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-bench-ws-'));
  const server = await startRateLimitedOpenAI({ limit: LIMIT, windowMs: WINDOW_MS, retryAfter: RETRY_AFTER });
  progress(`starting a stack (shared backoff ${limiter ? 'on' : 'off'})`);
  const stack = await startStack(
    {
      dataDir,
      host: '127.0.0.1',
      ports: { temporal: 0, temporalUi: 0, nats: 0, gateway: 0 },
      ui: false,
      serviceEnv: { STRAND_LOG_LEVEL: 'warn', OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.baseURL, STRAND_PROVIDER_BACKOFF: limiter ? 'on' : 'off' },
    },
    () => undefined,
  );
  try {
    const base = stack.urls.gateway;
    const sessions = await Promise.all(
      Array.from({ length: SESSIONS }, async () => {
        const { session_id: sid } = await post(base, '/api/sessions', { project_path: workspace, model: MODEL });
        return { sid: String(sid), events: await openSse(`${base}/api/sessions/${sid}/events`) };
      }),
    );
    progress(`${SESSIONS} sessions prompt at once; the server allows ${LIMIT} requests per ${WINDOW_MS / 1000} s`);
    const t0 = nowMs();
    // A turn may wait several windows; it ends (done or failed) long before this.
    const timeoutMs = WINDOW_MS * Math.ceil(SESSIONS / LIMIT + 4);
    const outcomes = await Promise.all(
      sessions.map(async ({ sid, events }, i) => {
        await post(base, `/api/sessions/${sid}/prompt`, { text: `session ${i}: say something short` });
        try {
          return await follow(events, timeoutMs);
        } finally {
          events.close();
        }
      }),
    );
    const finished = outcomes.filter((o) => o.outcome === 'done').length;
    return {
      shared_backoff: limiter ? 'on' : 'off',
      refused_429: server.counts.refused,
      requests: server.counts.requests,
      answered: server.counts.ok,
      turns_finished: finished,
      turns_failed: outcomes.length - finished,
      retries_announced: outcomes.reduce((n, o) => n + o.retries, 0),
      shared_backoff_waits: outcomes.reduce((n, o) => n + o.sharedWaits, 0),
      seconds_to_finish_all: round((Math.max(...outcomes.map((o) => o.endedAt)) - t0) / 1000),
      bar_429s_at_most: SESSIONS + LIMIT,
      meets_bar: server.counts.refused <= SESSIONS + LIMIT && finished === outcomes.length,
    };
  } finally {
    await stack.stop();
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(workspace, { recursive: true, force: true });
  }
}

async function main() {
  const withLimiter = await run(true);
  progress(`with the shared backoff: ${JSON.stringify(withLimiter)}`);
  const baseline = BASELINE ? await run(false) : undefined;
  const out = {
    bench: 'provider-backoff',
    provider: 'local server speaking OpenAI streaming Chat Completions (real SDK), fixed request windows',
    sessions: SESSIONS,
    limit_per_window: LIMIT,
    window_ms: WINDOW_MS,
    retry_after_sent: RETRY_AFTER,
    with_shared_backoff: withLimiter,
    ...(baseline ? { baseline_each_session_alone: baseline } : {}),
  };
  console.log(JSON.stringify(out, null, 2));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
