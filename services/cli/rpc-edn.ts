import pino from 'pino';
import { runtimeEnv } from '../common/env';
import { gatewayConfig } from '../gateway/config';
import { ednConfigFromEnv } from '../gateway/edn/edn-config';
import { EdnConnection, framerFor } from '../gateway/edn/edn-connection';
import type { EdnSessionHandlerFactory } from '../gateway/edn/protocol';
import { ednSessionHandlerFactory } from '../gateway/edn/session/index';
import { deferredHandlerFactory } from './rpc-edn-deferred';
import { ednStackReady } from './rpc-edn-stack';
import { StackLink } from './stack-link';

/** How long, after stdin ends, answers to requests already sent may still take. */
const EOF_DRAIN_MS = 3_000;
/** How long closing the NATS and Temporal connections may take before the process exits anyway. */
const CLOSE_GRACE_MS = 2_000;

/** `--cwd` (resolved, a directory) and `--session-id`, as cli-args.ts parsed them. */
export interface RpcEdnArgs {
  cwd: string;
  sessionId?: string;
}

/**
 * Takes stdout for frames alone: the returned function writes to it, and anything else in this
 * process that writes to stdout (console.log, a library's notice) lands on stderr instead, so a
 * stray line can never corrupt the client's stream.
 */
function claimStdout(): (line: string) => void {
  const stdout = process.stdout;
  const write = stdout.write.bind(stdout) as (line: string) => boolean;
  stdout.write = process.stderr.write.bind(process.stderr) as typeof stdout.write;
  return (line) => {
    write(line);
  };
}

/**
 * `strand rpc-edn`: one EDN RPC session (docs/edn.md) on stdin/stdout for an editor that spawns
 * it, backed by the stack at the addresses the gateway uses (services/common/env.ts). Logs go to
 * stderr. Resolves (and the process exits 0) on stdin EOF or SIGTERM/SIGINT/SIGHUP, after closing its
 * NATS and Temporal connections; turns it started keep running in the worker.
 */
export async function rpcEdn(args: RpcEdnArgs): Promise<void> {
  const writeFrame = claimStdout();
  const env = runtimeEnv();
  const log = pino({ name: 'rpc-edn', level: env.logLevel, base: { service: 'rpc-edn' } }, pino.destination({ fd: 2, sync: true }));
  const edn = ednConfigFromEnv();
  // Startup time matters (an editor waits for the handshake): each phase is logged with the process's age.
  log.debug({ uptime_ms: Math.round(performance.now()) }, 'rpc-edn loaded');
  const link = new StackLink({ env, config: gatewayConfig(), log, report: (line) => process.stderr.write(`${line}\n`), command: 'rpc-edn' });
  // Connecting starts now, while the client is still sending its handshake.
  link.ready().catch(() => undefined);

  let sessionFactory: EdnSessionHandlerFactory | undefined;
  const factory = deferredHandlerFactory(async () => {
    const runtime = await ednStackReady(link);
    return (sessionFactory ??= ednSessionHandlerFactory({ sessions: runtime.sessions, jobs: runtime.jobs, log }));
  });

  let finish: (why: string) => void = () => undefined;
  const finished = new Promise<string>((resolve) => (finish = resolve));
  const conn = new EdnConnection({
    transport: { write: writeFrame, end: () => finish('the connection was ended') },
    factory,
    peer: { transport: 'stdio', cwd: args.cwd, ...(args.sessionId !== undefined ? { sessionId: args.sessionId } : {}) },
    maxPending: edn.maxPending,
    log,
  });
  const framer = framerFor(conn, edn.maxFrameBytes);
  process.stdin.on('data', (chunk: Buffer) => framer.push(chunk));
  process.stdin.once('end', () => {
    framer.end();
    void conn.drain(EOF_DRAIN_MS).then(() => finish('stdin ended'));
  });
  process.stdin.once('error', () => finish('stdin failed'));
  // The client went away while we were writing (EPIPE): nobody is left to answer.
  process.stdout.once('error', () => finish('stdout closed'));
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(sig, () => finish(`received ${sig}`));

  const why = await finished;
  log.info({ why }, 'rpc-edn stopping');
  conn.close();
  process.stdin.pause();
  await Promise.race([link.close().catch((err: unknown) => log.warn({ err }, 'closing the stack connections failed')), new Promise((r) => setTimeout(r, CLOSE_GRACE_MS).unref())]);
}
