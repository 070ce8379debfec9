import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startStack } from '../infra/stack/stack';
import { median } from './stats';
import { EdnConnection } from './edn-connection';
import { EMACS_TOPICS } from './emacs-topics';
import { openWsRpc } from './ws-rpc';

/**
 * Gateway memory per idle connection, per transport, over the real local stack: the gateway process's
 * resident set (VmRSS in /proc/<pid>/status, median of several samples) before and after opening
 * CONNECTIONS idle connections of one transport, the difference divided by the count:
 * - SSE: event streams of one quiet session (each an HTTP connection and a response stream, joined
 *   to the session's one shared read);
 * - WebSocket: RPC sockets;
 * - EDN: RPC connections over TCP as psi's Emacs client leaves them, handshaken and subscribed, each
 *   with a focus session of its own (and so its own event read).
 * Each measurement starts from a freshly restarted gateway, warmed up with a few connections of the
 * same kind (memory freed by one phase would otherwise be reused by the next and hide its cost); RUNS
 * runs per transport, median. Target: ≤ 64 KB per idle connection. RSS moves with
 * the garbage collector, so single runs are noisy: read the per-run figures.
 * Run: `npm run bench:connections` (BENCH_RUNS, BENCH_CONNECTIONS, BENCH_TRANSPORTS,
 * BENCH_MIN_SETTLE_MS). Prints one JSON document.
 */
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 1000);
const TRANSPORTS = (process.env.BENCH_TRANSPORTS ?? 'sse,websocket,edn').split(',');
const MIN_SETTLE_MS = Number(process.env.BENCH_MIN_SETTLE_MS ?? 45_000);
const progress = (what: string) => console.error(`[bench] ${what}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rssKb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]);
}

/**
 * The gateway's resident set once it has settled: sampled every second for at least MIN_SETTLE_MS,
 * until the last ten samples lie within 1 MB of each other, or `maxMs` has passed; their median.
 * The minimum is there because opening a thousand connections (an EDN handshake creates a session)
 * leaves hundreds of MB of garbage that V8 hands back only when its memory reducer runs, about half
 * a minute after the allocations stop: RSS sits flat on that garbage until then, so "flat" alone
 * would measure the setup's garbage as the connections' cost (and a baseline taken over a previous
 * phase's garbage could make the cost come out negative).
 */
async function settledRss(pid: number, maxMs = 90_000): Promise<number> {
  const started = Date.now();
  const samples: number[] = [];
  for (;;) {
    await sleep(1_000);
    samples.push(rssKb(pid));
    const last = samples.slice(-10);
    const flat = last.length === 10 && Math.max(...last) - Math.min(...last) < 1024;
    if ((flat && Date.now() - started >= MIN_SETTLE_MS) || Date.now() - started > maxMs) return median(last);
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

/**
 * An idle EDN RPC connection over TCP as psi's Emacs client leaves it: handshake (which gives it a
 * focus session of its own) and subscribe to its topics, so the gateway holds the connection, its
 * session's event read and its footer state; nothing more is sent, and what arrives is only noted.
 */
/** An EDN connection as the Emacs client leaves it between turns: handshake, subscribed to its topics. */
async function openEdn(address: string): Promise<EdnConnection> {
  const ignore = () => undefined;
  const connection = await EdnConnection.open(address, { idPrefix: 'idle', requestTimeoutMs: 60_000, now: Date.now, who: () => 'an idle connection', onFrame: ignore, onBadFrame: ignore, onLost: ignore });
  await connection.request('handshake', { 'client-info': { name: 'strand-bench-connections', version: '0.1.0', 'protocol-version': '1.0', features: [] } });
  await connection.request('subscribe', { topics: EMACS_TOPICS });
  return connection;
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
  const stack = await startStack({ dataDir, host: '127.0.0.1', ports: { temporal: 0, temporalUi: 0, nats: 0, gateway: 0 }, ui: false, serviceEnv: { STRAND_LOG_LEVEL: 'warn', STRAND_RATE_LIMIT: '100000/100000', STRAND_MAX_SSE_CONNECTIONS: '5000', STRAND_MAX_WS_CONNECTIONS: '5000', STRAND_EDN_MAX_CONNECTIONS: '5000' } }, () => undefined);
  const base = stack.urls.gateway;
  const port = Number(new URL(base).port);
  const wsUrl = `${base.replace(/^http/, 'ws')}/v1/rpc`;
  const runs: Array<{ transport: string; baseline_kb: number; with_connections_kb: number; per_connection_kb: number }> = [];
  try {
    const res = await fetch(`${base}/api/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ project_path: os.tmpdir() }) });
    const sid = ((await res.json()) as { session_id: string }).session_id;
    const transports: Array<{ name: string; open: () => Promise<{ close: () => void }> }> = [
      { name: 'sse', open: async () => openSse(port, sid).then((s) => ({ close: () => s.destroy() })) },
      { name: 'websocket', open: async () => openWsRpc(wsUrl).then((w) => ({ close: () => w.terminate() })) },
      { name: 'edn', open: async () => openEdn(stack.urls.edn).then((c) => ({ close: () => c.close() })) },
    ];
    const chosen = transports.filter((t) => TRANSPORTS.includes(t.name));
    for (let r = 0; r < RUNS; r++) {
      for (const t of chosen) {
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
    const ednKb = median(runs.filter((x) => x.transport === 'edn').map((x) => x.per_connection_kb));
    console.log(
      JSON.stringify(
        {
          bench: 'idle-connections',
          runs: RUNS,
          connections_per_transport: CONNECTIONS,
          gateway_rss_per_idle_connection_kb: { sse: sseKb, websocket: wsKb, edn: ednKb },
          per_run: runs,
          target: '≤ 64 KB per idle connection',
          target_met: sseKb <= 64 && wsKb <= 64 && ednKb <= 64,
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
