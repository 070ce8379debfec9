import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack, type InstanceCounts, type InstanceName, type ServiceName, type Stack } from '../../infra/stack/stack';
import type { ServiceCode } from '../../infra/stack/stack-config';

/** One line a service printed, with when it arrived (performance.now()). */
export interface LogLine {
  at: number;
  service: string;
  line: string;
}

/** A local stack for one chaos scenario: its services' output goes to a log file and a recent tail. */
export interface ChaosStack {
  stack: Stack;
  /** The services' recent output (the last 5,000 lines). */
  recent: LogLine[];
  logFile: string;
  /** Starts again every service that is not running (a failed restart of the last trial); names them. */
  ensureUp(): Promise<InstanceName[]>;
  teardown(): Promise<void>;
}

const SERVICES: ServiceName[] = ['nats', 'temporal', 'store', 'worker', 'gateway'];
const RECENT_LINES = 5_000;

/**
 * Starts the whole stack on free ports in a fresh data dir, running `code` (built, as `npm start`
 * does, or from source), the worker pointed at `providerBaseURL` as an OpenAI-compatible server. nats-server and the Temporal dev server keep their data in that dir,
 * so a restarted one finds its streams and workflows again. A start that loses a port race (see
 * test/harness/stack-fixture.ts) is retried on fresh ports.
 */
export async function startChaosStack(providerBaseURL: string, logFile: string, code: ServiceCode, instances?: InstanceCounts): Promise<ChaosStack> {
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const log = fs.createWriteStream(logFile, { flags: 'a' });
  const recent: LogLine[] = [];
  const onLine = (service: string, line: string) => {
    const at = performance.now();
    recent.push({ at, service, line });
    if (recent.length > RECENT_LINES) recent.shift();
    log.write(`${new Date().toISOString()} [${service}] ${line}\n`);
  };
  for (let attempt = 1; ; attempt++) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-chaos-'));
    try {
      const stack = await startStack(
        {
          dataDir,
          host: '127.0.0.1',
          ports: { temporal: 0, temporalUi: 0, nats: 0, gateway: 0 },
          ui: false,
          serviceEnv: { STRAND_LOG_LEVEL: 'warn', OPENAI_API_KEY: 'chaos-key', OPENAI_BASE_URL: providerBaseURL },
          ...(instances ? { instances } : {}),
          code,
        },
        onLine,
        // As `npm start` does: every worker has run a turn before the first trial, so the first fault
        // does not land on a survivor that has never loaded the workflow code (a second slower).
        { warmUp: true },
      );
      // Every exit is logged, so that a process that dies when no fault was aimed at it is seen.
      for (const name of SERVICES.flatMap((service) => stack.instances(service))) {
        stack.process(name).onExit((exit) => {
          const how = exit.signal ? `killed by ${exit.signal}` : `exited with code ${exit.code}`;
          onLine('chaos', `${name} ${how} after ${Math.round(exit.uptimeMs / 1000)} s${exit.intended ? '' : ': nobody asked it to stop'}`);
        });
      }
      return {
        stack,
        recent,
        logFile,
        async ensureUp() {
          const restarted: InstanceName[] = [];
          for (const name of SERVICES.flatMap((service) => stack.instances(service))) {
            if (stack.process(name).running) continue;
            onLine('chaos', `${name} is down after the trial: starting it again`);
            await stack.restart(name);
            restarted.push(name);
          }
          return restarted;
        },
        async teardown() {
          await stack.stop();
          fs.rmSync(dataDir, { recursive: true, force: true });
          await new Promise((resolve) => log.end(resolve));
        },
      };
    } catch (err) {
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (attempt >= 3 || !/address already in use|EADDRINUSE/i.test((err as Error).message)) {
        log.end();
        throw err;
      }
      onLine('chaos', `a port was taken while the stack started (attempt ${attempt}); retrying on fresh ports`);
    }
  }
}
