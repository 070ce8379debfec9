import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { WebSocket } from 'ws';
import { AGENT_EVENTS_SUBJECTS, EVENT_TYPE_HEADER } from '../contracts/agent-event-stream';
import { startStack } from '../infra/stack/stack';
import { median, ms, nowMs, percentile } from './stats';

/**
 * Added latency of the WebSocket JSON RPC endpoint (specs/ws-rpc.md) over the real local stack: for
 * every streamed delta, from the event's publication to JetStream (its envelope's `ts`, set by the
 * worker right before the publish) to (a) a direct NATS subscriber on the agent-events subjects —
 * the floor, in the same run and the same process as the WebSocket clients — and (b) the WebSocket
 * client's `chat.event text-delta`. The added latency is (b) − (a) per delta, both clocked by this
 * process. Levels: 1, 50 and 200 chats at once, each on its own connection and session (as the
 * acolyte CLI does), each streaming DELTAS scripted deltas DELAY ms apart. p50/p99 per run, median
 * of RUNS runs. Run: `npm run bench:ws` (BENCH_RUNS, BENCH_LEVELS, BENCH_DELTAS, BENCH_DELTA_DELAY_MS
 * change the defaults). Prints one JSON document.
 */
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const LEVELS = (process.env.BENCH_LEVELS ?? '1,50,200').split(',').map(Number);
const DELTAS = Number(process.env.BENCH_DELTAS ?? 40);
const DELAY_MS = Number(process.env.BENCH_DELTA_DELAY_MS ?? 50);
const CHAT_TIMEOUT_MS = 300_000;
const SCRIPT = 'ws-latency-bench';
const progress = (what: string) => console.error(`[bench] ${what}`);

/** Wall-clock milliseconds with sub-millisecond resolution (comparable with the worker's Date.now()). */
const wallMs = () => performance.timeOrigin + performance.now();

/** One delta as seen by a receiver: when it arrived (this process's monotonic clock) and its text. */
interface Arrival {
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

/** One chat on its own connection: the text deltas' arrivals, resolved at `chat.done`. */
function chat(wsUrl: string, sessionId: string): Promise<Arrival[]> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl);
    const arrivals: Arrival[] = [];
    const timer = setTimeout(() => fail(new Error(`chat ${sessionId} did not finish within ${CHAT_TIMEOUT_MS} ms`)), CHAT_TIMEOUT_MS);
    const fail = (err: Error) => {
      clearTimeout(timer);
      ws.terminate();
      reject(err);
    };
    ws.on('open', () => {
      const request = { message: 'stream please', history: [], model: `scripted/${SCRIPT}`, sessionId, workspace: os.tmpdir() };
      ws.send(JSON.stringify({ id: 'rpc_bench1', type: 'chat.start', payload: { request } }));
    });
    ws.on('message', (data) => {
      const at = nowMs();
      const frame = JSON.parse(String(data)) as { type: string; event?: { type: string; text?: string }; errorMessage?: string; error?: string };
      if (frame.type === 'chat.event' && frame.event?.type === 'text-delta') arrivals.push({ at, text: frame.event.text ?? '' });
      else if (frame.type === 'chat.done') {
        clearTimeout(timer);
        ws.close();
        resolve(arrivals);
      } else if (frame.type === 'chat.error' || frame.type === 'error') fail(new Error(`chat ${sessionId}: ${frame.errorMessage ?? frame.error}`));
    });
    ws.on('error', fail);
  });
}

/** The largest number of chats whose streams overlapped (first to last delta at the floor). */
function mostAtOnce(spans: Array<[number, number]>): number {
  const edges = spans.flatMap(([a, b]) => [[a, 1], [b, -1]] as const).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let now = 0;
  let most = 0;
  for (const [, d] of edges) most = Math.max(most, (now += d));
  return most;
}

async function oneRun(wsUrl: string, nc: NatsConnection, chats: number, tag: string) {
  const floor = subscribeFloor(nc);
  const ids = Array.from({ length: chats }, (_, i) => `bench_${tag}_${i}`);
  try {
    const received = await Promise.all(ids.map((id) => chat(wsUrl, id)));
    // Let the subscriber drain whatever is still in flight from the last publishes.
    await new Promise((r) => setTimeout(r, 200));
    const floorMs: number[] = [];
    const wsMs: number[] = [];
    const addedMs: number[] = [];
    const spans: Array<[number, number]> = [];
    let mismatched = 0;
    ids.forEach((id, c) => {
      const seen = floor.bySession.get(id) ?? [];
      const got = received[c]!;
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
        wsMs.push(f.sinceTs! + (w.at - f.at));
      }
      if (seen.length > 0) spans.push([seen[0]!.at, seen[seen.length - 1]!.at]);
    });
    const pct = (xs: number[]) => ({ p50: percentile(xs, 50), p99: percentile(xs, 99) });
    return { floor: pct(floorMs), ws: pct(wsMs), added: pct(addedMs), deltas: addedMs.length, mismatched, atOnce: mostAtOnce(spans) };
  } finally {
    floor.stop();
  }
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-bench-ws-'));
  const scripts = path.join(dataDir, 'scripts');
  fs.mkdirSync(scripts);
  const text = Array.from({ length: DELTAS }, (_, i) => `d${i} `);
  fs.writeFileSync(path.join(scripts, `${SCRIPT}.json`), JSON.stringify({ steps: [[{ type: 'text', text }]], repeat_last_step: true }));
  progress('starting the stack');
  const stack = await startStack(
    {
      dataDir,
      host: '127.0.0.1',
      ports: { temporal: 0, temporalUi: 0, nats: 0, gateway: 0 },
      ui: false,
      serviceEnv: { STRAND_LOG_LEVEL: 'warn', STRAND_SCRIPTS_DIR: scripts, STRAND_SCRIPTED_DELTA_DELAY_MS: String(DELAY_MS) },
    },
    () => undefined,
  );
  const nc = await connect({ servers: stack.urls.nats, name: 'bench-ws-floor' });
  const wsUrl = `${stack.urls.gateway.replace(/^http/, 'ws')}/v1/rpc`;
  try {
    progress('warm-up chat');
    await oneRun(wsUrl, nc, 1, 'warmup');
    const levels = [];
    for (const chats of LEVELS) {
      const runs: Awaited<ReturnType<typeof oneRun>>[] = [];
      for (let r = 0; r < RUNS; r++) {
        const t0 = nowMs();
        runs.push(await oneRun(wsUrl, nc, chats, `c${chats}r${r}`));
        const last = runs[runs.length - 1]!;
        progress(`${chats} chats, run ${r + 1}/${RUNS}: ${last.deltas} deltas in ${((nowMs() - t0) / 1000).toFixed(1)} s, added p50 ${ms(last.added.p50)} p99 ${ms(last.added.p99)} ms`);
      }
      const med = (pick: (x: (typeof runs)[number]) => number) => ms(median(runs.map(pick)));
      levels.push({
        chats,
        floor_nats_subscriber_ms: { p50: med((x) => x.floor.p50), p99: med((x) => x.floor.p99) },
        ws_text_delta_ms: { p50: med((x) => x.ws.p50), p99: med((x) => x.ws.p99) },
        added_ms: { p50: med((x) => x.added.p50), p99: med((x) => x.added.p99) },
        deltas_per_run: runs.map((x) => x.deltas),
        mismatched_deltas: runs.reduce((n, x) => n + x.mismatched, 0),
        most_streaming_at_once: Math.max(...runs.map((x) => x.atOnce)),
        added_p99_per_run_ms: runs.map((x) => ms(x.added.p99)),
        // Tails follow the machine's load (other processes compete for the same cores): say what it was.
        load_avg_1m_after: +os.loadavg()[0]!.toFixed(2),
      });
    }
    const at50 = levels.find((l) => l.chats === 50);
    console.log(
      JSON.stringify(
        {
          bench: 'ws-latency',
          runs: RUNS,
          deltas_per_chat: DELTAS,
          delta_delay_ms: DELAY_MS,
          measured: 'publish (envelope ts) → direct NATS subscriber (floor) and → WebSocket chat.event text-delta; added = WS − floor per delta, same process',
          cores: os.cpus().length,
          levels,
          target: { added_p99_ms_at_50_chats: 10, met: at50 ? at50.added_ms.p99 <= 10 : null },
        },
        null,
        2,
      ),
    );
  } finally {
    await nc.close();
    await stack.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
