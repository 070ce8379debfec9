import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack, type Stack } from '../../infra/stack/stack';
import type { SoakConfig } from './config';

/** The scripted model every soak session uses (`scripted/<name>`, a file in the stack's scripts dir). */
export const SOAK_SCRIPT = 'soak-turn';
export const SOAK_MODEL = `scripted/${SOAK_SCRIPT}`;
/** The file each turn reads: present in the soak's project dir and in the repo root (EDN sessions' project). */
const SOAK_READ_PATH = 'README.md';

export interface SoakStack {
  stack: Stack;
  /** The project dir of SSE and WebSocket sessions (EDN sessions take the gateway's cwd, the repo root). */
  workspace: string;
  logFile: string;
  /** Stops every service and removes the data dir (the log stays). Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * One turn = two model steps: a short sentence and a `read_file` call, then (after the result) an
 * answer of `words` words that quotes the file's first line. The step only depends on the context,
 * so a retried step replays itself (activities/providers/scripts/README.md).
 */
function soakScript(words: number): unknown {
  const filler = Array.from({ length: Math.max(0, words - 6) }, (_, i) => `word${i}`).join(' ');
  return {
    description: 'npm run soak: one read_file call per turn, then a few dozen words',
    steps: [
      [{ type: 'text', text: 'Let me read the README first.' }, { type: 'tool_call', name: 'read_file', args: { path: SOAK_READ_PATH, limit: 20 } }],
      [{ type: 'text', text: `The README begins with {{tool_result_first_line}} and then ${filler}.` }],
    ],
  };
}

/**
 * The stack as `npm start` runs it (nats-server, Temporal dev server, store, two workers, gateway) on
 * free loopback ports in a fresh data dir, the workers' scripted provider reading the soak script.
 * Services log at warn level to `logFile`.
 */
export async function startSoakStack(config: SoakConfig): Promise<SoakStack> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-soak-'));
  const scripts = path.join(dataDir, 'scripts');
  const workspace = path.join(dataDir, 'project');
  fs.mkdirSync(scripts);
  fs.mkdirSync(workspace);
  fs.writeFileSync(path.join(scripts, `${SOAK_SCRIPT}.json`), JSON.stringify(soakScript(config.answerWords)));
  fs.writeFileSync(path.join(workspace, SOAK_READ_PATH), '# soak project\n\nA file the soak turns read.\n');
  // Kept after the run (the data dir is not): the services' warnings are the first thing to read on an error.
  const logFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'strand-soak-logs-')), 'services.log');
  const log = fs.createWriteStream(logFile, { flags: 'a' });
  const onLine = (service: string, line: string) => log.write(`${new Date().toISOString()} [${service}] ${line}\n`);
  let stack: Stack;
  try {
    stack = await startStack(
      {
        dataDir,
        host: '127.0.0.1',
        ports: { temporal: 0, temporalUi: 0, nats: 0, gateway: 0 },
        ui: false,
        instances: { worker: 2 },
        serviceEnv: {
          STRAND_LOG_LEVEL: 'warn',
          STRAND_SCRIPTS_DIR: scripts,
          STRAND_SCRIPTED_DELTA_DELAY_MS: String(config.deltaDelayMs),
          // Diagnostics for the services only (e.g. --trace-gc to tell a leak from a heap that grows to its size).
          ...(process.env.SOAK_SERVICE_NODE_OPTIONS ? { NODE_OPTIONS: process.env.SOAK_SERVICE_NODE_OPTIONS } : {}),
        },
      },
      onLine,
    );
  } catch (err) {
    log.end();
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  return {
    stack,
    workspace,
    logFile,
    async stop() {
      await stack.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
      await new Promise((resolve) => log.end(resolve));
    },
  };
}
