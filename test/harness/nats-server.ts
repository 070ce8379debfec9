import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { binaryPaths } from '../../infra/bootstrap/paths';
import { freePort, waitForTcp } from '../../infra/stack/free-port';
import { ManagedProcess } from '../../infra/stack/managed-process';

/** A real nats-server with JetStream on a free port and a temporary store dir. */
export interface TestNats {
  url: string;
  stop(): Promise<void>;
}

export async function startTestNats(): Promise<TestNats> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-nats-'));
  const port = await freePort();
  const proc = new ManagedProcess({ name: 'nats', command: binaryPaths().natsServer, args: ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir] }, () => undefined);
  proc.start();
  await waitForTcp('127.0.0.1', port, 15_000, () => proc.deathReason());
  return {
    url: `nats://127.0.0.1:${port}`,
    async stop() {
      await proc.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
