import { connect, type NatsConnection } from 'nats';
import { StoreClient } from '../../contracts/session-store/client';
import type { RuntimeEnv } from '../common/env';
import type { Logger } from '../common/logger';
import { NATS_LIVENESS, natsServers } from '../common/nats';
import type { GatewayConfig } from '../gateway/config';
import { openSessionRuntime, type SessionRuntime } from '../gateway/session-runtime';
import type { RunnableModels } from '../gateway/sessions/stack-models';

/** How long one attempt waits for NATS, the store and Temporal before it says the stack is down. */
const NATS_TIMEOUT_MS = 2_000;
const STORE_TIMEOUT_MS = 2_000;
const TEMPORAL_WAIT_MS = 3_000;

const HOW_TO_START = 'start the stack with `npm start` in the strand repository';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The stack did not answer: the message names what is down and how to start it. Worth trying again later. */
export class StackUnavailable extends Error {
  override readonly name = 'StackUnavailable';
}

/**
 * The stack as a command that speaks to an editor on stdio reaches it (`strand rpc-edn`, `strand
 * acp`): NATS, the session store and Temporal at the addresses the gateway uses, and the gateway's
 * session layer over them (session-runtime.ts). Unlike the gateway it does not wait for them: when
 * one does not answer within a few seconds, `ready` throws StackUnavailable naming what is down and
 * how to start it (each protocol says so its own way), `report` gets the same sentence once, and the
 * next request tries again, so starting the stack later needs no restart of the client.
 */
export class StackLink {
  private runtime: SessionRuntime | undefined;
  private attempt: Promise<SessionRuntime> | undefined;
  private lastReported = '';
  private closed = false;

  constructor(
    private readonly deps: {
      env: RuntimeEnv;
      config: GatewayConfig;
      log: Logger;
      report: (line: string) => void;
      /** The command, as the report and the NATS connection name say it: `rpc-edn`, `acp`. */
      command: string;
      /** Which models can run, when the stack's gateway says so (`strand acp`: stack-defaults.ts). */
      runnable?: RunnableModels;
    },
  ) {}

  /** The runtime once NATS, the store and Temporal answer; StackUnavailable naming what is down otherwise. */
  async ready(): Promise<SessionRuntime> {
    try {
      const runtime = this.runtime ?? (await (this.attempt ??= this.connect().finally(() => (this.attempt = undefined))));
      await this.waitForTemporal(runtime);
      return runtime;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (message !== this.lastReported) {
        this.lastReported = message;
        this.deps.report(`[strand ${this.deps.command}] the strand stack is not reachable: ${message}`);
      }
      throw new StackUnavailable(message, { cause: err });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const runtime = this.runtime ?? (await this.attempt?.catch(() => undefined));
    await runtime?.close();
  }

  private async connect(): Promise<SessionRuntime> {
    const { env, config, log } = this.deps;
    let nc: NatsConnection;
    try {
      // After the first connection it reconnects forever, like the gateway's.
      nc = await connect({ servers: natsServers(env.natsUrl), name: `strand-${this.deps.command}`, timeout: NATS_TIMEOUT_MS, maxReconnectAttempts: -1, reconnectTimeWait: 500, ...NATS_LIVENESS });
    } catch (err) {
      throw new Error(`NATS at ${env.natsUrl} is not reachable (${(err as Error).message}): ${HOW_TO_START}`);
    }
    try {
      await new StoreClient(nc, { timeoutMs: STORE_TIMEOUT_MS }).configStatus();
    } catch (err) {
      await nc.close();
      throw new Error(`the session store does not answer on NATS at ${env.natsUrl} (${(err as Error).message}): ${HOW_TO_START}`);
    }
    const runtime = await openSessionRuntime(nc, { env, config, log, ...(this.deps.runnable ? { runnable: this.deps.runnable } : {}) });
    if (this.closed) {
      await runtime.close();
      throw new Error('shutting down');
    }
    this.runtime = runtime;
    log.info({ nats: env.natsUrl, temporal: env.temporalAddress, uptime_ms: Math.round(performance.now()) }, 'connected to the strand stack');
    return runtime;
  }

  private async waitForTemporal(runtime: SessionRuntime): Promise<void> {
    if (runtime.temporal.current) return;
    const deadline = Date.now() + TEMPORAL_WAIT_MS;
    while (!runtime.temporal.current) {
      if (Date.now() > deadline) throw new Error(`${runtime.temporal.unavailableReason}: ${HOW_TO_START}`);
      await sleep(20);
    }
    this.deps.log.debug({ uptime_ms: Math.round(performance.now()) }, 'Temporal connected');
  }
}
