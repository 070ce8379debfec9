import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { WebSocket } from 'ws';
import { startStack } from '../infra/stack/stack';
import { median } from './stats';

/**
 * Gateway memory per idle connection, per transport, over the real local stack: the gateway process's
 * resident set (VmRSS in /proc/<pid>/status, median of several samples) before and after opening
 * CONNECTIONS idle SSE event streams (each a watched session with no activity: an HTTP connection, a
 * response stream and a JetStream consumer) or CONNECTIONS idle WebSocket RPC sockets; the difference
 * divided by the count. Each measurement starts from a freshly restarted gateway, warmed up with a few
 * connections of the same kind (memory freed by one phase would otherwise be reused by the next and
 * hide its cost); RUNS runs per transport, median. Target: ≤ 64 KB per idle connection. RSS moves with
 * the garbage collector, so single runs are noisy: read the per-run figures.
 * Run: `npm run bench:connections` (BENCH_RUNS, BENCH_CONNECTIONS). Prints one JSON document.
 */
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 1000);
const SETTLE_MS = 2_000;
const progress = (what: string) => console.error(`[bench] ${what}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rssKb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]);
}

/**
 * The gateway's resident set once it has settled: sampled every half second until the last six
 * samples lie within 1 MB of each other (a fresh process sheds start-up garbage for a while), or
 * `maxMs` has passed; their median.
 */
async function settledRss(pid: number, maxMs = 30_000): Promise<number> {
  await sleep(SETTLE_MS);
  const samples: number[] = [];
  const deadline = Date.now() + maxMs;
  for (;;) {
    samples.push(rssKb(pid));
    const last = samples.slice(-6);
    if ((last.length === 6 && Math.max(...last) - Math.min(...last) < 1024) || Date.now() > deadline) return median(last);
    await sleep(500);
  }
}

/** An idle SSE stream on a raw socket: resolves once the answer's headers are in; its events are never read. */
function openSse(port: number, sid: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(`GET /api/sessions/${sid}/events HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n`));
    let head = '';
    socket.on('data', (c: Buffer) => {
      if (head.includes('\r\n\r\n')) return;
      head += c.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      if (head.startsWith('HTTP/1.1 200')) resolve(socket);
      else reject(new Error(head.split('\r\n')[0]));
    });
    socket.on('error', reject);
  });
}

function openWs(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** Opens `count` connections `width` at a time. */
async function openMany<T>(count: number, open: () => Promise<T>, width = 50): Promise<T[]> {
  const out: T[] = [];
  while (out.length < count) out.push(...(await Promise.all(Array.from({ length: Math.min(width, count - out.length) }, open))));
  return out;
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-bench-connections-'));
  progress('starting the stack');
  const stack = await startStack({ dataDir, host: '127.0.0.1', ports: { temporal: 0, temporalUi: 0, nats: 0, gateway: 0 }, ui: false, serviceEnv: { STRAND_LOG_LEVEL: 'warn', STRAND_RATE_LIMIT: '100000/100000', STRAND_MAX_SSE_CONNECTIONS: '5000', STRAND_MAX_WS_CONNECTIONS: '5000' } }, () => undefined);
  const base = stack.urls.gateway;
  const port = Number(new URL(base).port);
  const wsUrl = `${base.replace(/^http/, 'ws')}/v1/rpc`;
  const runs: Array<{ transport: string; baseline_kb: number; with_connections_kb: number; per_connection_kb: number }> = [];
  try {
    const res = await fetch(`${base}/api/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ project_path: os.tmpdir() }) });
    const sid = ((await res.json()) as { session_id: string }).session_id;
    const transports: Array<{ name: string; open: () => Promise<{ close: () => void }> }> = [
      { name: 'sse', open: async () => openSse(port, sid).then((s) => ({ close: () => s.destroy() })) },
      { name: 'websocket', open: async () => openWs(wsUrl).then((w) => ({ close: () => w.terminate() })) },
    ];
    for (let r = 0; r < RUNS; r++) {
      for (const t of transports) {
        await stack.process('gateway').kill();
        await stack.restart('gateway');
        const pid = stack.process('gateway').pid!;
        // Warm up: the first connections of a kind load code and grow pools that later ones reuse.
        for (const c of await openMany(20, t.open)) c.close();
        const before = await settledRss(pid);
        const open = await openMany(CONNECTIONS, t.open);
        const after = await settledRss(pid);
        for (const c of open) c.close();
        const run = { transport: t.name, baseline_kb: before, with_connections_kb: after, per_connection_kb: +((after - before) / CONNECTIONS).toFixed(1) };
        runs.push(run);
        progress(`run ${r + 1}/${RUNS}, ${t.name}: RSS ${before} kB → ${after} kB with ${CONNECTIONS} idle connections: ${run.per_connection_kb} kB each`);
      }
    }
    const sseKb = median(runs.filter((x) => x.transport === 'sse').map((x) => x.per_connection_kb));
    const wsKb = median(runs.filter((x) => x.transport === 'websocket').map((x) => x.per_connection_kb));
    console.log(
      JSON.stringify(
        {
          bench: 'idle-connections',
          runs: RUNS,
          connections_per_transport: CONNECTIONS,
          gateway_rss_per_idle_connection_kb: { sse: sseKb, websocket: wsKb },
          per_run: runs,
          target: '≤ 64 KB per idle connection',
          target_met: sseKb <= 64 && wsKb <= 64,
          load_avg_1m_after: +os.loadavg()[0]!.toFixed(2),
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
