import os from 'node:os';
import type { NatsConnection } from 'nats';
import { agentEventSubject, EVENT_TYPE_HEADER } from '../contracts/agent-event-stream';
import { startLatencyStack } from './latency-common';
import { rawSseSubscribe } from './raw-sse-client';
import { median, ms, nowMs, percentile } from './stats';

/**
 * SSE fan-out of one session over the real local stack: one turn streams DELTAS scripted deltas DELAY
 * ms apart while N clients watch the session's `GET /api/sessions/{id}/events`. For every delta at
 * every client, the added latency is its arrival at the client minus its arrival at a direct NATS
 * subscriber on the agent-events subjects (the floor, same process, same run). Each run measures 1
 * subscriber, then SUBSCRIBERS subscribers, so the baseline is taken in the same run under the same
 * load; p50/p99 per run, median of RUNS runs. Target: the fan-out p99 at most 2× the single one.
 * A turn streams 1000 deltas (20 s): the single subscriber's p99 is then its 10th-worst delta, where
 * with 200 it was its 2nd-worst and moved between 1.6 and 4.6 ms from one run to the next.
 * Every subscriber is its own HTTP connection, all in this process; each only notes its reads and
 * their times while the turn streams and parses them afterwards (raw-sse-client.ts), so that one
 * process playing 100 clients does not add its own parsing to the later clients' arrivals. Run: `npm run bench:fanout` (BENCH_RUNS,
 * BENCH_SUBSCRIBERS, BENCH_DELTAS, BENCH_DELTA_DELAY_MS). Prints one JSON document.
 */
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 100);
const DELTAS = Number(process.env.BENCH_DELTAS ?? 1000);
const DELAY_MS = Number(process.env.BENCH_DELTA_DELAY_MS ?? 20);
const SCRIPT = 'fanout-bench';
const TIMEOUT_MS = 120_000;
const progress = (what: string) => console.error(`[bench] ${what}`);

/** One delta as a receiver saw it: when (this process's clock) and its text. */
interface Arrival {
  at: number;
  text: string;
}

/** The floor: every delta of `sid` as a direct NATS subscriber on its subject receives it. */
function floorOf(nc: NatsConnection, sid: string): { arrivals: Arrival[]; stop: () => void } {
  const arrivals: Arrival[] = [];
  const sub = nc.subscribe(agentEventSubject(sid), {
    callback: (_err, msg) => {
      const at = nowMs();
      if (msg.headers?.get(EVENT_TYPE_HEADER) !== 'assistant.delta') return;
      arrivals.push({ at, text: (JSON.parse(new TextDecoder().decode(msg.data)) as { event: { text: string } }).event.text });
    },
  });
  return { arrivals, stop: () => sub.unsubscribe() };
}

/** Added latency of every delta at every subscriber (its arrival minus the floor's), and deltas that did not match. */
function addedLatencies(floor: Arrival[], subscribers: Arrival[][]): { added: number[]; mismatched: number } {
  const added: number[] = [];
  let mismatched = 0;
  for (const got of subscribers) {
    mismatched += Math.abs(floor.length - got.length);
    for (let i = 0; i < Math.min(floor.length, got.length); i++) {
      if (floor[i]!.text !== got[i]!.text) mismatched++;
      else added.push(got[i]!.at - floor[i]!.at);
    }
  }
  return { added, mismatched };
}

/** One SSE subscriber (a raw socket that parses after the turn): `done` has its deltas' arrivals. */
function subscribe(base: string, sid: string): { connected: Promise<void>; done: Promise<Arrival[]>; close: () => void } {
  const sub = rawSseSubscribe(`${base}/api/sessions/${sid}/events`, 'event: turn.finished\n', TIMEOUT_MS);
  const done = sub.done.then((frames) =>
    frames.filter((f) => f.event === 'message.delta').map((f) => ({ at: f.at, text: (JSON.parse(f.data) as { content: string }).content })),
  );
  done.catch(() => undefined);
  return { connected: sub.connected, done, close: sub.close };
}

async function post(base: string, route: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${route} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

async function main() {
  // A high rate limit: 100 subscribers open their streams at once from one address.
  const { stack, nc, stop } = await startLatencyStack({ name: 'fanout', script: SCRIPT, deltas: DELTAS, delayMs: DELAY_MS, env: { STRAND_RATE_LIMIT: '100000/100000' } });
  const base = stack.urls.gateway;
  const levels = [1, SUBSCRIBERS];
  const perRun = new Map<number, Array<{ p50: number; p99: number; deltas: number; mismatched: number }>>(levels.map((l) => [l, []]));
  try {
    for (let r = 0; r < RUNS; r++) {
      for (const level of levels) {
        const { session_id: sid } = await post(base, '/api/sessions', { project_path: os.tmpdir(), model: `scripted/${SCRIPT}` });
        const subs = Array.from({ length: level }, () => subscribe(base, sid as string));
        await Promise.all(subs.map((s) => s.connected));
        const floor = floorOf(nc, sid as string);
        const t0 = nowMs();
        await post(base, `/api/sessions/${sid}/prompt`, { text: 'stream please' });
        const received = await Promise.all(subs.map((s) => s.done));
        await new Promise((resolve) => setTimeout(resolve, 200));
        floor.stop();
        for (const s of subs) s.close();
        const { added, mismatched } = addedLatencies(floor.arrivals, received);
        const run = { p50: percentile(added, 50), p99: percentile(added, 99), deltas: added.length, mismatched };
        perRun.get(level)!.push(run);
        progress(`run ${r + 1}/${RUNS}, ${level} subscriber(s): ${run.deltas} deltas in ${((nowMs() - t0) / 1000).toFixed(1)} s, added p50 ${ms(run.p50)} p99 ${ms(run.p99)} ms`);
      }
    }
    const summary = (level: number) => {
      const runs = perRun.get(level)!;
      return {
        added_ms: { p50: ms(median(runs.map((x) => x.p50))), p99: ms(median(runs.map((x) => x.p99))) },
        added_p99_per_run_ms: runs.map((x) => ms(x.p99)),
        deltas_per_run: runs.map((x) => x.deltas),
        mismatched_deltas: runs.reduce((n, x) => n + x.mismatched, 0),
      };
    };
    const single = summary(1);
    const many = summary(SUBSCRIBERS);
    const ratio = +(many.added_ms.p99 / single.added_ms.p99).toFixed(2);
    console.log(
      JSON.stringify(
        {
          bench: 'sse-fanout',
          runs: RUNS,
          deltas_per_turn: DELTAS,
          delta_delay_ms: DELAY_MS,
          subscribers_1: single,
          [`subscribers_${SUBSCRIBERS}`]: many,
          added_p99_ratio: ratio,
          added_p99_ratio_per_run: many.added_p99_per_run_ms.map((p99, i) => +(p99 / single.added_p99_per_run_ms[i]!).toFixed(2)),
          target: 'fan-out added p99 ≤ 2× single',
          target_met: ratio <= 2,
          cores: os.cpus().length,
          load_avg_1m_after: +os.loadavg()[0]!.toFixed(2),
        },
        null,
        2,
      ),
    );
  } finally {
    await stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
