import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { binaryPaths } from '../../infra/bootstrap/paths';
import { freePort, waitForTcp } from '../../infra/stack/free-port';
import { ManagedProcess } from '../../infra/stack/managed-process';

/** A real nats-server with JetStream on a free port and a temporary store dir. */
export interface TestNats {
  url: string;
  /** Its JetStream store dir (kept across `kill` / `start`). */
  storeDir: string;
  stop(): Promise<void>;
  /** SIGKILL, as a crash: the store dir is kept, so `start` brings the same streams back. */
  kill(): Promise<void>;
  /** Starts it again on the same port and store dir (after `kill`), and waits until it listens. */
  start(): Promise<void>;
}

export async function startTestNats(): Promise<TestNats> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-nats-'));
  const port = await freePort();
  const spec = { name: 'nats', command: binaryPaths().natsServer, args: ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir] };
  let proc = new ManagedProcess(spec, () => undefined);
  const start = async () => {
    proc.start();
    await waitForTcp('127.0.0.1', port, 15_000, () => proc.deathReason());
  };
  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    storeDir: dir,
    async stop() {
      await proc.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
    async kill() {
      await proc.kill();
    },
    async start() {
      proc = new ManagedProcess(spec, () => undefined);
      await start();
    },
  };
}
