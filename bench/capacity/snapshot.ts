import fs from 'node:fs';
import path from 'node:path';
import type { NatsConnection } from 'nats';
import type { Stack } from '../../infra/stack/stack';
import { treeCpuMs, treeRssKib } from './process-cost';
import { serverCounters, type Counts } from './temporal-actions';

/** The stack's processes whose cost the capacity model needs, in the order the report lists them. */
export const SERVICES = ['gateway', 'worker', 'store', 'nats', 'temporal'] as const;
export type Service = (typeof SERVICES)[number];



/** Everything read before and after a run; the difference is the run's cost. */
export interface Snapshot {
  at: number;
  cpuMs: Record<Service, number>;
  /** Per stream: bytes and messages held, and `lastSeq` (every write moves it, even one a KV bucket later drops). */
  streams: Record<string, { bytes: number; messages: number; lastSeq: number }>;
  storeDirBytes: number;
  temporalDbBytes: number;
  counters: Counts;
}

function dirBytes(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    n += e.isDirectory() ? dirBytes(p) : fs.statSync(p).size;
  }
  return n;
}

const perService = (f: (pid: number) => number, stack: Stack) => Object.fromEntries(SERVICES.map((s) => [s, f(stack.process(s).pid!)])) as Record<Service, number>;

export const cpuOf = (stack: Stack) => perService(treeCpuMs, stack);
export const rssKibOf = (stack: Stack) => perService(treeRssKib, stack);

export async function snapshot(stack: Stack, nc: NatsConnection, metricsUrl: string): Promise<Snapshot> {
  const jsm = await nc.jetstreamManager();
  const streams: Snapshot['streams'] = {};
  // Every stream: the agent events, the store's (jetstream adapter only) and the key-value buckets
  // the worker writes per tool call and per running activity (KV_<bucket>).
  for await (const info of jsm.streams.list()) streams[info.config.name] = { bytes: info.state.bytes, messages: info.state.messages, lastSeq: info.state.last_seq };
  const dataDir = stack.config.dataDir;
  return {
    at: performance.now(),
    cpuMs: cpuOf(stack),
    streams,
    storeDirBytes: dirBytes(path.join(dataDir, 'store')),
    temporalDbBytes: ['temporal.db', 'temporal.db-wal'].reduce((n, f) => n + (fs.existsSync(path.join(dataDir, f)) ? fs.statSync(path.join(dataDir, f)).size : 0), 0),
    counters: await serverCounters(metricsUrl),
  };
}
