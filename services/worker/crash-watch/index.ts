import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { Client, Connection } from '@temporalio/client';
import type { NatsConnection } from 'nats';
import { natsReplicas } from '../../../contracts/nats-replicas';
import { RUNNING_ACTIVITIES_BUCKET } from '../../../contracts/worker-presence';
import { CrashWatcher } from './crash-watcher';
import { RunningRegistry } from './running-registry';
import { createTemporalPort } from './temporal-port';

/** A bucket entry outlives its worker only until a survivor or a restarted worker clears it; a day bounds leftovers. */
const ENTRY_TTL_MS = 24 * 60 * 60 * 1000;

/** This worker's id: host and pid for people reading logs, random bytes so a reused pid is never mistaken. */
function newWorkerId(): string {
  const host = os.hostname().toLowerCase().replace(/[^a-z0-9-]/g, '-').slice(0, 40);
  return `${host}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/**
 * Wires the crash watch of one worker: the registry its activity interceptor lists activities in, and
 * the watcher that fails a dead worker's activities on its behalf (crash-watcher.ts says how death is judged).
 */
export async function createCrashWatch(opts: {
  nc: NatsConnection;
  temporalAddress: string;
  namespace: string;
  log: (level: 'info' | 'warn', message: string) => void;
}): Promise<{ registry: RunningRegistry; watcher: CrashWatcher; close(): Promise<void> }> {
  const workerId = newWorkerId();
  const kv = await opts.nc.jetstream().views.kv(RUNNING_ACTIVITIES_BUCKET, { history: 1, ttl: ENTRY_TTL_MS, replicas: natsReplicas() });
  // Opened in the background, not awaited: the worker's start does not wait for this second
  // connection (its own NativeConnection already proved Temporal answers), and it is open long
  // before a peer's death needs it. A call made earlier still connects on demand.
  const connection = Connection.lazy({ address: opts.temporalAddress });
  void connection.ensureConnected().catch((err: unknown) => opts.log('warn', `crash watch: Temporal did not answer yet (${err instanceof Error ? err.message : String(err)}); its calls will connect when made`));
  const client = new Client({ connection, namespace: opts.namespace });
  const registry = new RunningRegistry(kv, workerId, (m) => opts.log('warn', m));
  const watcher = new CrashWatcher({ nc: opts.nc, kv, selfId: workerId, temporal: createTemporalPort(client, opts.namespace), log: opts.log });
  return {
    registry,
    watcher,
    async close() {
      watcher.stop();
      await connection.close();
    },
  };
}
