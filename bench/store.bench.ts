import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { StoreClient } from '../contracts/session-store/client';
import { encodeSubjectToken } from '../contracts/session-store/subjects';
import { binaryPaths } from '../infra/bootstrap/paths';
import { freePort, waitForTcp } from '../infra/stack/free-port';
import { ManagedProcess } from '../infra/stack/managed-process';
import { SessionStore } from '../services/session-store/domain/store';
import { fileNameOf } from '../services/session-store/storage/file-names';
import { FsStorage } from '../services/session-store/storage/fs-storage';
import { JetStreamStorage } from '../services/session-store/storage/jetstream-storage';
import type { LogRecord, StoragePort } from '../services/session-store/storage/port';
import { baselineDurableEcho, baselineFdatasync, baselineJetStreamPublish, baselineNatsRtt, measureOverNats, msg } from './store-measures';
import { median, ms, nowMs } from './stats';

/**
 * Session store benchmarks (issue 3), fs and jetstream side by side, printed as JSON. Each figure is
 * the median of RUNS runs; the baselines (a bare NATS request/reply, a bare append+fdatasync, a bare
 * acknowledged JetStream publish) are measured in the same run so the store's own cost can be read
 * off. The store runs as a separate process reached over NATS, as deployed.
 * Run: `npm run bench:store` (needs `npm run bootstrap`).
 */
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const LIMITS = { default_list_limit: 50, max_list_limit: 500 };
const REPLAY_ENTRIES = 100_000;
/** Progress goes to stderr, so stdout stays one JSON document. */
const progress = (what: string) => console.error(`[bench] ${what}`);

/** One append's records, as the domain writes them: the entry, the leaf move, the new meta. */
function appendRecords(i: number): LogRecord[] {
  const entry = { kind: 'message' as const, id: `e${i}`, parent_id: i ? `e${i - 1}` : null, timestamp: i, revision: 0, message: msg(i) };
  const meta = { session_id: 'big', title: '', description: '', status: 'idle' as const, created_at: 1, updated_at: i, message_count: i + 1 };
  return [{ type: 'entry', entry }, { type: 'leaf', entry_id: entry.id }, { type: 'meta', meta }];
}

async function timeColdLoad(storage: () => StoragePort): Promise<number> {
  const xs: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t0 = nowMs();
    const store = new SessionStore(storage(), () => undefined, LIMITS);
    await store.load();
    const page = store.messages({ session_id: 'big', limit: 50 }); // the first read builds the path index
    xs.push(nowMs() - t0);
    if (store.get({ session_id: 'big' })?.meta.message_count !== REPLAY_ENTRIES || page?.messages.length !== 50) throw new Error('replay lost entries');
    await store.storage.close();
  }
  return median(xs);
}

/** fs: one JSONL file of 100,000 appends, loaded by a fresh store. */
async function replayFs(dir: string): Promise<number> {
  const replayDir = path.join(dir, 'replay');
  fs.mkdirSync(replayDir, { recursive: true });
  const lines: string[] = [];
  for (let i = 0; i < REPLAY_ENTRIES; i++) for (const r of appendRecords(i)) lines.push(JSON.stringify(r));
  fs.writeFileSync(path.join(replayDir, fileNameOf('big')), lines.join('\n') + '\n');
  return timeColdLoad(() => new FsStorage(replayDir));
}

/**
 * jetstream: 100,000 commits of one append each, in the adapter's message format (`{records}` per
 * commit on `<prefix>.<session token>`), loaded by a fresh store. The load checks the count, so a
 * change of format fails this bench instead of measuring nothing.
 */
async function replayJetStream(nc: NatsConnection): Promise<number> {
  const opts = { stream: 'BENCH_REPLAY', subjectPrefix: 'bench.replay' };
  const jsm = await nc.jetstreamManager();
  await jsm.streams.add({ name: opts.stream, subjects: [`${opts.subjectPrefix}.>`] });
  const js = nc.jetstream();
  const subject = `${opts.subjectPrefix}.${encodeSubjectToken('big')}`;
  for (let i = 0; i < REPLAY_ENTRIES; i += 1000) {
    await Promise.all(Array.from({ length: 1000 }, (_, k) => js.publish(subject, JSON.stringify({ records: appendRecords(i + k) }))));
  }
  try {
    return await timeColdLoad(() => new JetStreamStorage(nc, opts));
  } finally {
    await jsm.streams.delete(opts.stream);
  }
}

/**
 * Memory held per 1,000 sessions of 5 messages: the growth of RSS and of the live heap after a
 * forced GC (run node with --expose-gc). Measured before the other benchmarks leave garbage.
 */
async function memoryPer1000Sessions(storage: StoragePort): Promise<{ rss_mib: number; heap_mib: number }> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc (npm run bench:store does)');
  gc();
  const before = process.memoryUsage();
  const store = new SessionStore(storage, () => undefined, LIMITS);
  await store.load();
  for (let s = 0; s < 1000; s++) {
    const { session_id } = await store.create({ title: `session ${s}` });
    await store.appendMany({ session_id, messages: [msg(1), msg(2), msg(3), msg(4), msg(5)] });
  }
  gc();
  const after = process.memoryUsage();
  const mib = (x: number) => Math.round((x / (1024 * 1024)) * 10) / 10;
  if (store.size < 1000) throw new Error('sessions were not created'); // also keeps the store alive until measured
  await storage.close();
  return { rss_mib: mib(after.rss - before.rss), heap_mib: mib(after.heapUsed - before.heapUsed) };
}

/** Starts the store process on `adapter`, measures it over NATS, stops it. */
async function overNats(adapter: 'fs' | 'jetstream', natsUrl: string, nc: NatsConnection, dir: string) {
  const storeProc = new ManagedProcess(
    {
      name: `store-${adapter}`,
      command: process.execPath,
      args: ['--import', 'tsx', path.join(__dirname, '../services/session-store/main.ts')],
      env: { STRAND_NATS_URL: natsUrl, STRAND_STORE_ADAPTER: adapter, STRAND_STORE_DATA_DIR: path.join(dir, 'store'), STRAND_LOG_LEVEL: 'warn' },
    },
    () => undefined,
  );
  storeProc.start();
  try {
    await storeProc.waitForLine(/^\[store\] ready\b/, 60_000);
    return await measureOverNats(new StoreClient(nc), RUNS);
  } finally {
    await storeProc.stop();
  }
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-bench-'));
  const port = await freePort();
  const natsUrl = `nats://127.0.0.1:${port}`;
  const nats = new ManagedProcess({ name: 'nats', command: binaryPaths().natsServer, args: ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', path.join(dir, 'nats')] }, () => undefined);
  nats.start();
  try {
    await waitForTcp('127.0.0.1', port, 15_000, () => nats.deathReason());
    const nc = await connect({ servers: natsUrl });
    progress('memory per 1,000 sessions');
    const memory = {
      fs: await memoryPer1000Sessions(new FsStorage(path.join(dir, 'rss'))),
      jetstream: await memoryPer1000Sessions(new JetStreamStorage(nc, { stream: 'BENCH_RSS', subjectPrefix: 'bench.rss' })),
    };
    progress('fs over NATS');
    const fsFigures = await overNats('fs', natsUrl, nc, dir);
    progress('jetstream over NATS');
    const jsFigures = await overNats('jetstream', natsUrl, nc, dir);
    progress('cold replays and baselines');
    const result = {
      bench: 'session-store',
      machine: { cpus: os.cpus().length, node: process.version },
      runs: RUNS,
      targets: { fs_append_p99_at_1000_per_s_ms: 3, messages_page_50_of_10000_ms: 5, cold_replay_100000_entries_ms: 2000 },
      adapters: {
        fs: { ...fsFigures, cold_replay_100000_entries_ms: ms(await replayFs(dir)), memory_per_1000_sessions_of_5_messages: memory.fs },
        jetstream: { ...jsFigures, cold_replay_100000_entries_ms: ms(await replayJetStream(nc)), memory_per_1000_sessions_of_5_messages: memory.jetstream },
      },
      baselines: {
        nats_request_reply_ms: ms(await baselineNatsRtt(nc)),
        append_fdatasync_ms: await baselineFdatasync(dir),
        durable_echo_over_nats_at_1000_per_s_ms: await baselineDurableEcho(nc, natsUrl, dir, RUNS),
        jetstream_publish_ack_ms: await baselineJetStreamPublish(nc),
      },
    };
    console.log(JSON.stringify(result, null, 2));
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
