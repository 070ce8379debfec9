import fs from 'node:fs';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import pino from 'pino';
import { runtimeEnv } from '../common/env';
import type { Logger } from '../common/logger';
import { createAcpAgent } from '../gateway/acp/agent';
import { createGatewayAuth, loadTokens } from '../gateway/auth/tokens';
import { gatewayConfig } from '../gateway/config';
import { version } from '../../package.json';
import { gatewayAddressFromEnv } from '../../clients/terminal/gateway-address';
import { modelParts } from '../../contracts/models';
import type { GatewayConfig } from '../gateway/config';
import { GatewayModels } from './stack-defaults';
import { StackLink } from './stack-link';

/** How long closing the NATS and Temporal connections may take before the process exits anyway. */
const CLOSE_GRACE_MS = 2_000;

/** `--cwd` (resolved, a directory), as cli-args.ts parsed it. */
export interface AcpArgs {
  cwd: string;
}

/**
 * Takes stdout for ACP frames alone: the returned stream writes to it, and anything else in this
 * process that writes to stdout (console.log, a library's notice) lands on stderr instead, so a
 * stray line can never corrupt the client's stream.
 */
function claimStdout(): WritableStream<Uint8Array> {
  const stdout = process.stdout;
  const write = stdout.write.bind(stdout) as (chunk: Uint8Array, cb: (err?: Error | null) => void) => boolean;
  stdout.write = process.stderr.write.bind(process.stderr) as typeof stdout.write;
  const frames = new Writable({ write: (chunk: Uint8Array, _enc, cb) => void write(chunk, cb) });
  return Writable.toWeb(frames) as WritableStream<Uint8Array>;
}

/**
 * The log of an ACP agent. Editors show every stderr line as an error (Emacs acp.el does), so
 * stderr carries errors only, unless STRAND_LOG_LEVEL asks for more. The SDK's own console output
 * (a response to a request nobody sent, a notification that failed) goes to this log too.
 */
function acpLog(): Logger {
  const level = process.env.STRAND_LOG_LEVEL?.trim() ? runtimeEnv().logLevel : 'error';
  const log = pino({ name: 'acp', level, base: { service: 'acp' } }, pino.destination({ fd: 2, sync: true }));
  for (const [method, to] of [['log', 'info'], ['info', 'info'], ['warn', 'warn'], ['error', 'warn'], ['debug', 'debug']] as const) {
    console[method] = (...args: unknown[]) => log[to]({ args }, 'console');
  }
  return log;
}

/**
 * Who this process acts for. With tokens configured (STRAND_TOKENS_FILE, STRAND_TOKENS, or a
 * generated token file that exists), STRAND_TOKEN must name one: sessions are that principal's.
 * A generated token file that does not exist is not created here: that is the gateway's job.
 */
function principal(env: NodeJS.ProcessEnv): { enabled: boolean; principal: string | undefined } {
  const generated = env.STRAND_GENERATED_TOKEN_FILE?.trim();
  const readable = { ...env, ...(generated && !fs.existsSync(generated) ? { STRAND_GENERATED_TOKEN_FILE: '' } : {}) };
  const auth = createGatewayAuth(loadTokens(readable, () => undefined));
  return { enabled: auth.enabled, principal: auth.enabled ? auth.principalOf(env.STRAND_TOKEN?.trim() || undefined) : undefined };
}

/**
 * `strand acp`: strand as an Agent Client Protocol agent (docs/acp.md) on stdin/stdout, for an
 * editor that spawns it, backed by the stack at the addresses the gateway uses. Resolves (and the
 * process exits 0) on stdin EOF or SIGTERM/SIGINT/SIGHUP; turns it started keep running in the worker.
 */
export async function acpAgent(args: AcpArgs): Promise<void> {
  const output = claimStdout();
  const log = acpLog();
  const env = runtimeEnv();
  let lastReported = '';
  const own = gatewayConfig();
  // The stack's gateway says what the default model is and what can run; STRAND_DEFAULT_MODEL in the agent's own environment still wins.
  const address = gatewayAddressFromEnv();
  const models = new GatewayModels(address, process.env.STRAND_DEFAULT_MODEL?.trim() ? own.defaultModel : undefined);
  let link: StackLink | undefined;
  const linked = async (): Promise<StackLink> => {
    if (link) return link;
    const reply = await models.list();
    // The stack's providers: a model its worker runs is accepted here though this process has no key for it.
    const providers = [...new Set([...own.configuredProviders, ...reply.models.map((m) => modelParts(m.ref).provider)])].filter((p) => p !== 'scripted');
    const config: GatewayConfig = { ...own, defaultModel: reply.default_model, configuredProviders: providers, modelServers: [] };
    link ??= new StackLink({ env, config, log, report: () => undefined, command: 'acp', runnable: models });
    log.info({ gateway: address.url, default_model: reply.default_model }, 'took the stack\'s defaults');
    return link;
  };
  // Connecting starts now, while the client is still sending `initialize`.
  linked()
    .then((l) => l.ready())
    .catch(() => undefined);

  const agent = createAcpAgent({
    stack: async () => {
      try {
        const { sessions, jobs } = await (await linked()).ready();
        return { sessions, jobs };
      } catch (err) {
        const message = (err as Error).message;
        if (message !== lastReported) log.error({ reason: message }, 'the strand stack is not reachable');
        lastReported = message;
        throw new acp.RequestError(-32603, `the strand stack is not reachable: ${message}`, { code: 'UNAVAILABLE', reason: 'stack-unavailable' });
      }
    },
    log,
    baseDir: args.cwd,
    auth: principal({ ...process.env, ...(address.token ? { STRAND_TOKEN: address.token } : {}) }),
    version,
  });
  const input = Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>;
  const connection = agent.app.connect(acp.ndJsonStream(output, input));

  let finish: (why: string) => void = () => undefined;
  const finished = new Promise<string>((resolve) => (finish = resolve));
  void connection.closed.then(() => finish('the client closed the connection'));
  process.stdout.once('error', () => finish('stdout closed'));
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(sig, () => finish(`received ${sig}`));

  const why = await finished;
  log.info({ why }, 'strand acp stopping');
  agent.close();
  connection.close();
  await Promise.race([(link?.close() ?? Promise.resolve()).catch((err: unknown) => log.warn({ err }, 'closing the stack connections failed')), new Promise((r) => setTimeout(r, CLOSE_GRACE_MS).unref())]);
}
