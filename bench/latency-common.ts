import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { AGENT_EVENTS_SUBJECTS, EVENT_TYPE_HEADER } from '../contracts/agent-event-stream';
import { startStack, type Stack } from '../infra/stack/stack';
import { median, ms, nowMs, percentile } from './stats';

/**
 * What the transport latency benchmarks (bench:ws, bench:edn) share: a real local stack whose scripted
 * provider streams DELTAS deltas DELAY ms apart, a direct NATS subscriber on the agent-events subjects
 * as the floor (same run, same process as the clients), per-delta matching of what a client received
 * against what the floor saw, and p50/p99 per run with the median of runs per level. Each benchmark
 * only supplies its client: one streamed turn per session, returning the deltas' arrivals.
 */
export const progress = (what: string) => console.error(`[bench] ${what}`);

/** Wall-clock milliseconds with sub-millisecond resolution (comparable with the worker's Date.now()). */
const wallMs = () => performance.timeOrigin + performance.now();

/** One delta as seen by a receiver: when it arrived (this process's monotonic clock) and its text. */
export interface Arrival {
  at: number;
  text: string;
  /** Publication time minus arrival time on the wall clock: only known to the NATS subscriber. */
  sinceTs?: number;
}

/** Every delta the direct NATS subscriber saw, per session, in arrival order. */
function subscribeFloor(nc: NatsConnection): { bySession: Map<string, Arrival[]>; stop: () => void } {
  const bySession = new Map<string, Arrival[]>();
  const sub = nc.subscribe(AGENT_EVENTS_SUBJECTS, {
    callback: (_err, msg) => {
      const at = nowMs();
      const wall = wallMs();
      // The header lets the floor skip other events without parsing them, as cheaply as possible.
      if (msg.headers?.get(EVENT_TYPE_HEADER) !== 'assistant.delta') return;
      const env = JSON.parse(new TextDecoder().decode(msg.data)) as { session_id: string; ts: number; event: { text: string } };
      if (!env.event.text) return;
      let list = bySession.get(env.session_id);
      if (!list) bySession.set(env.session_id, (list = []));
      list.push({ at, text: env.event.text, sinceTs: wall - env.ts });
    },
  });
  return { bySession, stop: () => sub.unsubscribe() };
}

/** The largest number of sessions whose streams overlapped (first to last delta at the floor). */
function mostAtOnce(spans: Array<[number, number]>): number {
  const edges = spans.flatMap(([a, b]) => [[a, 1], [b, -1]] as const).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let now = 0;
  let most = 0;
  for (const [, d] of edges) most = Math.max(most, (now += d));
  return most;
}

const pct = (xs: number[]) => ({ p50: percentile(xs, 50), p99: percentile(xs, 99) });

export type RunResult = Awaited<ReturnType<typeof measureRun>>;

/** What one client received in one turn: its session and the deltas' arrivals in order. */
export interface Received {
  sessionId: string;
  arrivals: Arrival[];
}

/**
 * One run: the floor listens while `streams` runs one turn per session; then the i-th delta a client
 * received is matched with the i-th the floor saw for that session. `client` is publish → client per
 * delta, `added` is client − floor (both clocked here), over the whole run. `addedAllStreaming` is
 * the same for the deltas published while every session of the run was streaming (from the last
 * session's first delta to the first session's last, at the floor): the level's concurrency proper,
 * without the ramp in which turns are still being started (a burst of Temporal work that loads the
 * machine, not the transport) and the ramp down. Null when no moment had every session streaming.
 */
export async function measureRun(nc: NatsConnection, streams: () => Promise<Received[]>) {
  const floor = subscribeFloor(nc);
  try {
    const received = await streams();
    // Let the subscriber drain whatever is still in flight from the last publishes.
    await new Promise((r) => setTimeout(r, 200));
    const floorMs: number[] = [];
    const clientMs: number[] = [];
    const addedMs: number[] = [];
    const spans: Array<[number, number]> = [];
    const timed: Array<{ at: number; added: number }> = [];
    let mismatched = 0;
    for (const { sessionId, arrivals: got } of received) {
      const seen = floor.bySession.get(sessionId) ?? [];
      if (seen.length !== got.length) mismatched += Math.abs(seen.length - got.length);
      for (let i = 0; i < Math.min(seen.length, got.length); i++) {
        const f = seen[i]!;
        const w = got[i]!;
        if (f.text !== w.text) {
          mismatched++;
          continue;
        }
        floorMs.push(f.sinceTs!);
        addedMs.push(w.at - f.at);
        timed.push({ at: f.at, added: w.at - f.at });
        clientMs.push(f.sinceTs! + (w.at - f.at));
      }
      if (seen.length > 0) spans.push([seen[0]!.at, seen[seen.length - 1]!.at]);
    }
    const from = Math.max(...spans.map((x) => x[0]));
    const to = Math.min(...spans.map((x) => x[1]));
    const inWindow = timed.filter((x) => x.at >= from && x.at <= to).map((x) => x.added);
    const allStreaming = spans.length > 0 && to > from && inWindow.length > 0 ? { ...pct(inWindow), deltas: inWindow.length, window_ms: ms(to - from) } : null;
    return { floor: pct(floorMs), client: pct(clientMs), added: pct(addedMs), addedAllStreaming: allStreaming, deltas: addedMs.length, mismatched, atOnce: mostAtOnce(spans) };
  } finally {
    floor.stop();
  }
}

/** `runs` runs at one level, each reported on stderr as it ends (`unit` names what the level counts). */
export async function runLevel(runs: number, level: number, unit: string, oneRun: (tag: string) => Promise<RunResult>): Promise<RunResult[]> {
  const results: RunResult[] = [];
  for (let r = 0; r < runs; r++) {
    const t0 = nowMs();
    results.push(await oneRun(`c${level}r${r}`));
    const last = results[results.length - 1]!;
    const all = last.addedAllStreaming;
    const window = all ? `; all streaming (${all.deltas} deltas in ${(all.window_ms / 1000).toFixed(1)} s): p50 ${ms(all.p50)} p99 ${ms(all.p99)} ms` : '; never all streaming at once';
    progress(`${level} ${unit}, run ${r + 1}/${runs}: ${last.deltas} deltas in ${((nowMs() - t0) / 1000).toFixed(1)} s, added p50 ${ms(last.added.p50)} p99 ${ms(last.added.p99)} ms${window}`);
  }
  return results;
}

/** One level's JSON: medians of the runs' p50/p99; the client's figures under `clientKey`. */
export function summarizeLevel(runs: RunResult[], clientKey: string) {
  const med = (pick: (x: RunResult) => number) => ms(median(runs.map(pick)));
  return {
    floor_nats_subscriber_ms: { p50: med((x) => x.floor.p50), p99: med((x) => x.floor.p99) },
    [clientKey]: { p50: med((x) => x.client.p50), p99: med((x) => x.client.p99) },
    added_ms: { p50: med((x) => x.added.p50), p99: med((x) => x.added.p99) },
    // Null when some run never had every session streaming at once (streams shorter than the ramp).
    added_ms_all_streaming: runs.every((x) => x.addedAllStreaming)
      ? { p50: med((x) => x.addedAllStreaming!.p50), p99: med((x) => x.addedAllStreaming!.p99), deltas_per_run: runs.map((x) => x.addedAllStreaming!.deltas) }
      : null,
    deltas_per_run: runs.map((x) => x.deltas),
    mismatched_deltas: runs.reduce((n, x) => n + x.mismatched, 0),
    most_streaming_at_once: Math.max(...runs.map((x) => x.atOnce)),
    added_p99_per_run_ms: runs.map((x) => ms(x.added.p99)),
    // Tails follow the machine's load (other processes compete for the same cores): say what it was.
    load_avg_1m_after: +os.loadavg()[0]!.toFixed(2),
  };
}

/**
 * The transport latency target (≤ 10 ms p99 added at 50), judged where the level is what it says:
 * every one of the 50 streaming at once. added_ms (the whole run, turn starts included) is reported
 * beside it in the level's figures. Null when the level was not run or never had all 50 streaming.
 */
export function latencyTarget(at50: ReturnType<typeof summarizeLevel> | undefined, name: string) {
  const p99 = at50?.added_ms_all_streaming?.p99;
  return { [name]: 10, judged_on: 'added_ms_all_streaming.p99', met: p99 === undefined ? null : p99 <= 10 };
}

export interface LatencyStack {
  stack: Stack;
  /** The floor's connection. */
  nc: NatsConnection;
  stop: () => Promise<void>;
}

/** A local stack whose `scripted/<script>` model streams `deltas` deltas `delayMs` apart, and the floor's NATS connection. */
export async function startLatencyStack(opts: { name: string; script: string; deltas: number; delayMs: number; env?: NodeJS.ProcessEnv }): Promise<LatencyStack> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `strand-bench-${opts.name}-`));
  const scripts = path.join(dataDir, 'scripts');
  fs.mkdirSync(scripts);
  const text = Array.from({ length: opts.deltas }, (_, i) => `d${i} `);
  fs.writeFileSync(path.join(scripts, `${opts.script}.json`), JSON.stringify({ steps: [[{ type: 'text', text }]], repeat_last_step: true }));
  progress('starting the stack');
  const stack = await startStack(
    {
      dataDir,
      host: '127.0.0.1',
      ports: { temporal: 0, temporalUi: 0, nats: 0, gateway: 0 },
      ui: false,
      serviceEnv: { STRAND_LOG_LEVEL: 'warn', STRAND_SCRIPTS_DIR: scripts, STRAND_SCRIPTED_DELTA_DELAY_MS: String(opts.delayMs), ...opts.env },
    },
    () => undefined,
  );
  const cleanUp = async () => {
    await stack.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  const nc = await connect({ servers: stack.urls.nats, name: `bench-${opts.name}-floor` }).catch(async (err: unknown) => {
    await cleanUp();
    throw err;
  });
  return {
    stack,
    nc,
    stop: async () => {
      await nc.close();
      await cleanUp();
    },
  };
}
