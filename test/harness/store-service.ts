import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { connect, type NatsConnection } from 'nats';
import { startStoreService, type RunningStore } from '../../services/session-store/service';
import { startTestNats, type TestNats } from './nats-server';

/** A real nats-server, a connection to it, and the store service on the fs adapter in a temp dir. */
export interface TestStoreService {
  nats: TestNats;
  nc: NatsConnection;
  dataDir: string;
  running: RunningStore;
  stop(): Promise<void>;
}

export async function startTestStoreService(opts: { maxBodyBytes?: number } = {}): Promise<TestStoreService> {
  const nats = await startTestNats();
  const nc = await connect({ servers: nats.url });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-store-'));
  const running = await startStoreService({
    nc,
    config: { adapter: { name: 'fs', config: { data_dir: dataDir } }, default_list_limit: 50, max_list_limit: 500 },
    log: pino({ level: 'silent' }),
    ...opts,
  });
  return {
    nats,
    nc,
    dataDir,
    running,
    async stop() {
      await running.stop();
      await nc.close();
      await nats.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
