import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { StoreClient } from '../contracts/session-store/client';
import type { Message } from '../contracts/session-store/schemas';
import { binaryPaths } from '../infra/bootstrap/paths';
import { freePort, waitForTcp } from '../infra/stack/free-port';
import { ManagedProcess } from '../infra/stack/managed-process';
import { SessionStore } from '../services/session-store/domain/store';
import { fileNameOf } from '../services/session-store/storage/file-names';
import { FsStorage } from '../services/session-store/storage/fs-storage';
import { median, ms, nowMs, percentile } from './stats';

/**
 * Session store benchmarks (issue 3), printed as JSON. Each figure is the median of RUNS runs; the
 * baselines (a bare NATS request/reply, a bare append+fdatasync) are measured in the same run so the
 * store's own cost can be read off. The store runs as a separate process, reached over NATS. Run: `npm run bench:store` (needs `npm run bootstrap`).
 * The jetstream adapter is not built yet, so only the fs column exists.
 */
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const msg = (i: number): Message => ({ role: 'user', content: [{ type: 'text', text: `message number ${i} with a little text` }], timestamp: i });

async function paced(client: StoreClient, sessionId: string, perSecond: number, count: number): Promise<number[]> {
  const latencies: number[] = [];
  const start = nowMs();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const due = start + (i * 1000) / perSecond;
    const wait = due - nowMs();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const t0 = nowMs();
    inFlight.push(client.append({ session_id: sessionId, message: msg(i) }).then(() => void latencies.push(nowMs() - t0)));
  }
  await Promise.all(inFlight);
  return latencies;
}

async function throughput(client: StoreClient, sessions: string[], total: number, concurrency: number): Promise<number> {
  let next = 0;
  const t0 = nowMs();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        await client.append({ session_id: sessions[i % sessions.length]!, message: msg(i) });
      }
    }),
  );
  return total / ((nowMs() - t0) / 1000);
}

async function timed(fn: () => Promise<unknown>, times: number): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = nowMs();
    await fn();
    xs.push(nowMs() - t0);
  }
  return median(xs);
}

async function baselineNatsRtt(nc: NatsConnection): Promise<number> {
  const sub = nc.subscribe('bench.echo', { callback: (_e, m) => m.respond(m.data) });
  const t = await timed(() => nc.request('bench.echo', '{}', { timeout: 2000 }), 2000);
  sub.unsubscribe();
  return t;
}

async function baselineFdatasync(dir: string): Promise<{ p50: number; p99: number }> {
  const file = path.join(dir, 'fsync-baseline');
  const xs: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const t0 = nowMs();
    const h = await fsp.open(file, 'a+');
    await h.write('{"type":"leaf","entry_id":"x"}\n');
    await h.datasync();
    await h.close();
    xs.push(nowMs() - t0);
    await new Promise((r) => setTimeout(r, 1)); // paced like the 1,000/s run, not back to back
  }
  return { p50: ms(percentile(xs, 50)), p99: ms(percentile(xs, 99)) };
}

async function replay100k(dir: string): Promise<number> {
  const replayDir = path.join(dir, 'replay');
  fs.mkdirSync(replayDir, { recursive: true });
  const lines = [JSON.stringify({ type: 'meta', meta: { session_id: 'big', title: '', description: '', status: 'idle', created_at: 1, updated_at: 1, message_count: 100_000 } })];
  for (let i = 0; i < 100_000; i++) {
    lines.push(JSON.stringify({ type: 'entry', entry: { kind: 'message', id: `e${i}`, parent_id: i ? `e${i - 1}` : null, timestamp: i, revision: 0, message: msg(i) } }));
    lines.push(JSON.stringify({ type: 'leaf', entry_id: `e${i}` }));
  }
  fs.writeFileSync(path.join(replayDir, fileNameOf('big')), lines.join('\n') + '\n');
  const xs: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t0 = nowMs();
    const store = new SessionStore(new FsStorage(replayDir), () => undefined, { default_list_limit: 50, max_list_limit: 500 });
    await store.load();
    store.messages({ session_id: 'big', limit: 50 }); // the first read builds the path index
    xs.push(nowMs() - t0);
  }
  return median(xs);
}

/**
 * Memory held per 1,000 sessions of 5 messages: measured first (before other benchmarks leave garbage)
 * as the growth of RSS and of the live heap after a forced GC (run node with --expose-gc).
 */
async function memoryPer1000Sessions(dir: string): Promise<{ rss_mib: number; heap_mib: number }> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc (npm run bench:store does)');
  gc();
  const before = process.memoryUsage();
  const store = new SessionStore(new FsStorage(path.join(dir, 'rss')), () => undefined, { default_list_limit: 50, max_list_limit: 500 });
  await store.load();
  for (let s = 0; s < 1000; s++) {
    const { session_id } = await store.create({ title: `session ${s}` });
    await store.appendMany({ session_id, messages: [msg(1), msg(2), msg(3), msg(4), msg(5)] });
  }
  gc();
  const after = process.memoryUsage();
  const mib = (x: number) => Math.round((x / (1024 * 1024)) * 10) / 10;
  const kept = store.size; // keeps the store alive until measured
  if (kept < 1000) throw new Error('sessions were not created');
  return { rss_mib: mib(after.rss - before.rss), heap_mib: mib(after.heapUsed - before.heapUsed) };
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-bench-'));
  const memory = await memoryPer1000Sessions(dir);
  const port = await freePort();
  const nats = new ManagedProcess({ name: 'nats', command: binaryPaths().natsServer, args: ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', path.join(dir, 'nats')] }, () => undefined);
  nats.start();
  try {
    await waitForTcp('127.0.0.1', port, 15_000, () => nats.deathReason());
    const nc = await connect({ servers: `nats://127.0.0.1:${port}` });
    // The store runs as its own process, as deployed, so client and store do not share an event loop.
    const storeProc = new ManagedProcess(
      {
        name: 'store',
        command: process.execPath,
        args: ['--import', 'tsx', path.join(__dirname, '../services/session-store/main.ts')],
        env: { STRAND_NATS_URL: `nats://127.0.0.1:${port}`, STRAND_STORE_DATA_DIR: path.join(dir, 'store'), STRAND_LOG_LEVEL: 'warn' },
      },
      () => undefined,
    );
    storeProc.start();
    await storeProc.waitForLine(/^\[store\] ready\b/, 60_000);
    const client = new StoreClient(nc);

    const p50: number[] = [];
    const p99: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const { session_id } = await client.create({});
      const lat = await paced(client, session_id, 1000, 3000);
      p50.push(percentile(lat, 50));
      p99.push(percentile(lat, 99));
    }

    const one: number[] = [];
    const hundred: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      one.push(await throughput(client, [(await client.create({})).session_id], 3000, 64));
      const many = await Promise.all(Array.from({ length: 100 }, () => client.create({}).then((c) => c.session_id)));
      hundred.push(await throughput(client, many, 3000, 64));
    }

    const { session_id: big } = await client.create({});
    for (let i = 0; i < 10_000; i += 500) {
      await client.appendMany({ session_id: big, messages: Array.from({ length: 500 }, (_, k) => msg(i + k)) });
    }
    let cursor: string | undefined;
    let lastCursor: string | undefined;
    do {
      const page = await client.messages({ session_id: big, limit: 50, ...(cursor ? { cursor } : {}) });
      lastCursor = cursor;
      cursor = page?.next_cursor;
    } while (cursor);
    const firstPage = await timed(() => client.messages({ session_id: big, limit: 50 }), 50);
    const lastPage = await timed(() => client.messages({ session_id: big, limit: 50, cursor: lastCursor! }), 50);

    const result = {
      bench: 'session-store',
      machine: { cpus: os.cpus().length, node: process.version },
      runs: RUNS,
      adapters: {
        fs: {
          append_latency_at_1000_per_s_ms: { p50: ms(median(p50)), p99: ms(median(p99)), target_p99: 3 },
          append_throughput_per_s: { one_session: Math.round(median(one)), hundred_sessions: Math.round(median(hundred)), concurrency: 64 },
          messages_page_50_of_10000_ms: { first: ms(firstPage), last: ms(lastPage), target: 5 },
          cold_replay_100000_entries_ms: { value: ms(await replay100k(dir)), target: 2000 },
          memory_per_1000_sessions_of_5_messages: memory,
        },
        jetstream: 'not built yet',
      },
      baselines: { nats_request_reply_ms: ms(await baselineNatsRtt(nc)), append_fdatasync_ms: await baselineFdatasync(dir) },
    };
    console.log(JSON.stringify(result, null, 2));
    await storeProc.stop();
    await nc.close();
  } finally {
    await nats.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
