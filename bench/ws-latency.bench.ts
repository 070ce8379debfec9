import os from 'node:os';
import type { NatsConnection } from 'nats';
import { latencyTarget, measureRun, progress, runLevel, startLatencyStack, summarizeLevel, type Arrival } from './latency-common';
import { nowMs } from './stats';
import { chatStartFrame, openWsRpc } from './ws-rpc';

/**
 * Added latency of the WebSocket JSON RPC endpoint (docs/websocket.md) over the real local stack: for
 * every streamed delta, from the event's publication to JetStream (its envelope's `ts`, set by the
 * worker right before the publish) to (a) a direct NATS subscriber on the agent-events subjects —
 * the floor, in the same run and the same process as the WebSocket clients — and (b) the WebSocket
 * client's `chat.event text-delta`. The added latency is (b) − (a) per delta, both clocked by this
 * process. Levels: 1, 50 and 200 chats at once, each on its own connection and session (as the
 * acolyte CLI does), each streaming DELTAS scripted deltas DELAY ms apart. p50/p99 per run, median
 * of RUNS runs, over the whole run and over the deltas published while every chat was streaming
 * (latency-common.ts); the target is judged on the latter, the level's concurrency proper. Run: `npm run bench:ws` (BENCH_RUNS, BENCH_LEVELS, BENCH_DELTAS, BENCH_DELTA_DELAY_MS
 * change the defaults). Prints one JSON document. The floor, matching and statistics are shared with
 * bench:edn (latency-common.ts).
 */
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const LEVELS = (process.env.BENCH_LEVELS ?? '1,50,200').split(',').map(Number);
// A 10 s answer at 50 ms per delta: long enough that, at 50, every stream overlaps the others for
// most of its length after the turns have started (which loads the machine for a few seconds).
const DELTAS = Number(process.env.BENCH_DELTAS ?? 200);
const DELAY_MS = Number(process.env.BENCH_DELTA_DELAY_MS ?? 50);
const CHAT_TIMEOUT_MS = 300_000;
const SCRIPT = 'ws-latency-bench';

/** One chat on its own connection: the text deltas' arrivals, resolved at `chat.done`. */
async function chat(wsUrl: string, sessionId: string): Promise<Arrival[]> {
  const ws = await openWsRpc(wsUrl);
  return new Promise((resolve, reject) => {
    const arrivals: Arrival[] = [];
    const timer = setTimeout(() => fail(new Error(`chat ${sessionId} did not finish within ${CHAT_TIMEOUT_MS} ms`)), CHAT_TIMEOUT_MS);
    const fail = (err: Error) => {
      clearTimeout(timer);
      ws.terminate();
      reject(err);
    };
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
    ws.send(chatStartFrame('rpc_bench1', { message: 'stream please', history: [], model: `scripted/${SCRIPT}`, sessionId, workspace: os.tmpdir() }));
  });
}

function oneRun(wsUrl: string, nc: NatsConnection, chats: number, tag: string) {
  const ids = Array.from({ length: chats }, (_, i) => `bench_${tag}_${i}`);
  return measureRun(nc, () => Promise.all(ids.map(async (sessionId) => ({ sessionId, arrivals: await chat(wsUrl, sessionId) }))));
}

async function main() {
  const { stack, nc, stop } = await startLatencyStack({ name: 'ws', script: SCRIPT, deltas: DELTAS, delayMs: DELAY_MS });
  const wsUrl = `${stack.urls.gateway.replace(/^http/, 'ws')}/v1/rpc`;
  try {
    progress('warm-up chat');
    await oneRun(wsUrl, nc, 1, 'warmup');
    const levels = [];
    for (const chats of LEVELS) {
      const runs = await runLevel(RUNS, chats, 'chats', (tag) => oneRun(wsUrl, nc, chats, tag));
      levels.push({ chats, ...summarizeLevel(runs, 'ws_text_delta_ms') });
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
          target: latencyTarget(at50, 'added_p99_ms_at_50_chats'),
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
