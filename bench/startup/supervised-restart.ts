import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack } from '../../infra/stack/stack';
import { DEFAULT_RESTART_POLICY } from '../../infra/stack/restart-policy';
import { type ServiceCode } from '../../infra/stack/stack-config';
import { median, ms, nowMs } from '../stats';

/**
 * What a client of `npm start` sees when its gateway dies: the gateway is killed with SIGKILL in a
 * supervised stack (as `strand up` runs it), and the time until its /healthz answers 200 again is
 * taken, polling every 20 ms: the supervisor's first backoff (0.5 s) plus the new gateway's start.
 */
export async function gatewayKillToHealthy(code: ServiceCode, runs: number): Promise<{ code: ServiceCode; median_ms: number; runs_ms: number[] }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-bench-restart-'));
  const stack = await startStack(
    { dataDir, host: '127.0.0.1', ports: { temporal: 0, temporalUi: 0, nats: 0, gateway: 0 }, ui: false, serviceEnv: { STRAND_LOG_LEVEL: 'warn' }, code },
    () => undefined,
    // Every kill restarts after the 0.5 s of a first crash (the default policy doubles it for a service
    // that crashed within the last minute).
    { supervise: true, restartPolicy: { ...DEFAULT_RESTART_POLICY, maxMs: DEFAULT_RESTART_POLICY.initialMs } },
  );
  const samples: number[] = [];
  try {
    for (let run = 0; run < runs; run++) {
      await new Promise((r) => setTimeout(r, 2_000));
      const t0 = nowMs();
      // A crash, not a stop: ManagedProcess.kill() would tell the supervisor it was meant.
      stack.process('gateway').signal('SIGKILL');
      while (!(await healthy(stack.urls.gateway))) await new Promise((r) => setTimeout(r, 20));
      samples.push(nowMs() - t0);
    }
  } finally {
    await stack.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return { code, median_ms: ms(median(samples)), runs_ms: samples.map(ms) };
}

async function healthy(base: string): Promise<boolean> {
  try {
    return (await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(1_000) })).ok;
  } catch {
    return false;
  }
}
