import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack, type Stack } from '../infra/stack/stack';
import { openSse, type SseConnection } from '../test/harness/sse-client';
import { median, nowMs } from './stats';

/**
 * Session control figures over the real local stack (issue 9): abort latency — POST /interrupt on a
 * streaming turn → `turn.finished {outcome: aborted}` at an SSE client, and → the HTTP reply — p50/p99
 * over ABORTS aborts (median of RUNS runs); and the worker's resident memory with SESSIONS idle
 * session workflows running, against the same worker with none (same run).
 * Run: `npm run bench:control`. Prints one JSON document.
 */
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const ABORTS = Number(process.env.BENCH_ABORTS ?? 20);
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1000);
const progress = (what: string) => console.error(`[bench] ${what}`);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? NaN;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- loosely typed JSON replies
type Json = Record<string, any>;

async function post(base: string, route: string, body?: unknown): Promise<Json> {
  const res = await fetch(`${base}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) });
  return (await res.json()) as Json;
}

async function until(conn: SseConnection, match: (event: string, data: Json) => boolean): Promise<number> {
  for (;;) {
    const e = await conn.next(30_000);
    if (!e) throw new Error('event stream ended');
    if (match(e.event, JSON.parse(e.data))) return nowMs();
  }
}

async function abortRun(base: string) {
  const { session_id: sid } = await post(base, '/api/sessions', { project_path: os.tmpdir() });
  const events = await openSse(`${base}/api/sessions/${sid}/events`);
  const finished: number[] = [];
  const replied: number[] = [];
  const long = Array.from({ length: 2000 }, (_, i) => `w${i}`).join(' ');
  for (let i = 0; i < ABORTS; i++) {
    await post(base, `/api/sessions/${sid}/prompt`, { text: long });
    await until(events, (ev) => ev === 'message.delta');
    const t0 = nowMs();
    const reply = post(base, `/api/sessions/${sid}/interrupt`).then(() => nowMs());
    const done = await until(events, (ev, d) => ev === 'turn.finished' && d.outcome === 'aborted');
    finished.push(done - t0);
    replied.push((await reply) - t0);
    await until(events, (ev, d) => ev === 'agent.state' && d.state === 'idle');
  }
  events.close();
  return { finished, replied };
}

function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

async function idleSessionsRss(stack: Stack) {
  const base = stack.urls.gateway;
  const pid = stack.process('worker').pid!;
  const before = rssMiB(pid);
  for (let i = 0; i < SESSIONS; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, SESSIONS - i) }, async () => {
        const { session_id } = await post(base, '/api/sessions', { project_path: os.tmpdir() });
        await post(base, `/api/sessions/${session_id}/resume`);
      }),
    );
    if (i % 200 === 0) progress(`${i + 50} idle sessions`);
  }
  await new Promise((r) => setTimeout(r, 3_000));
  (global as { gc?: () => void }).gc?.();
  const after = rssMiB(pid);
  return { sessions: SESSIONS, worker_rss_mib_before: before, worker_rss_mib_after: after, per_session_kib: Math.round(((after - before) * 1024) / SESSIONS) };
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-bench-control-'));
  progress('starting the stack');
  const stack = await startStack(
    { dataDir, host: '127.0.0.1', ports: { temporal: 0, temporalUi: 0, nats: 0, gateway: 0 }, ui: false, serviceEnv: { STRAND_LOG_LEVEL: 'warn', STRAND_SCRIPTED_DELTA_DELAY_MS: '20', STRAND_RATE_LIMIT: '100000' } },
    () => undefined,
  );
  try {
    const runs: Awaited<ReturnType<typeof abortRun>>[] = [];
    for (let r = 0; r < RUNS; r++) {
      progress(`abort run ${r + 1}/${RUNS}: ${ABORTS} aborts`);
      runs.push(await abortRun(stack.urls.gateway));
    }
    const med = (pick: (x: (typeof runs)[number]) => number[], p: number) => +median(runs.map((x) => pct(pick(x), p))).toFixed(1);
    progress(`starting ${SESSIONS} idle sessions`);
    const memory = await idleSessionsRss(stack);
    console.log(
      JSON.stringify(
        {
          bench: 'session-control',
          runs: RUNS,
          aborts_per_run: ABORTS,
          abort_to_turn_finished_ms: { p50: med((x) => x.finished, 0.5), p99: med((x) => x.finished, 0.99) },
          abort_to_http_reply_ms: { p50: med((x) => x.replied, 0.5), p99: med((x) => x.replied, 0.99) },
          idle_sessions: memory,
        },
        null,
        2,
      ),
    );
  } finally {
    await stack.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
