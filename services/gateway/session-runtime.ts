import type { NatsConnection } from 'nats';
import { ensureAgentEventsStream } from '../../contracts/agent-event-stream';
import { StoreClient } from '../../contracts/session-store/client';
import { createNatsPromptImageStore } from '../../contracts/prompt-image-store';
import { taskQueueFromEnv } from '../../contracts/task-queues';
import type { RuntimeEnv } from '../common/env';
import type { Logger } from '../common/logger';
import { temporalUiUrl } from '../common/telemetry-config';
import { withoutLogFields } from '../common/tracing-log-context';
import type { GatewayConfig } from './config';
import { PacedEventReader } from './events/paced-event-reader';
import { JobService } from './jobs/job-service';
import { RunningTurns } from './sessions/running-turns';
import { SessionService } from './sessions/session-service';
import type { RunnableModels } from './sessions/stack-models';
import { workflowUrl } from './temporal/jobs';
import { SessionCommands } from './temporal/session-commands';
import { TemporalLink } from './temporal/temporal-link';

/** What every front door to sessions needs: the store, Temporal, and the protocol-neutral SessionService and RunningTurns over them. */
export interface SessionRuntime {
  nc: NatsConnection;
  store: StoreClient;
  temporal: TemporalLink;
  sessions: SessionService;
  /** Running turns across sessions (`/api/turns`, status counts). */
  turns: RunningTurns;
  /** Unattended jobs (`/api/jobs`). */
  jobs: JobService;
  /** The events read for clients (its lag is a metric). */
  reader: PacedEventReader;
  /** Closes Temporal and drains NATS (turns keep running in the worker). */
  close(): Promise<void>;
}

/**
 * Builds the SessionService the same way for the gateway and for `strand rpc-edn`, from the same
 * environment (services/common/env.ts, services/gateway/config.ts), over a NATS connection the
 * caller opened (the gateway waits for NATS; the CLI gives up quickly and says the stack is down).
 * Temporal connects in the background (TemporalLink), so this returns without waiting for it.
 */
export async function openSessionRuntime(nc: NatsConnection, deps: { env: RuntimeEnv; config: GatewayConfig; log: Logger; runnable?: RunnableModels }): Promise<SessionRuntime> {
  const { env, config, log } = deps;
  // Temporal starts connecting first, so its handshake overlaps the stream check.
  const temporal = new TemporalLink(env.temporalAddress, env.temporalNamespace);
  try {
    await ensureAgentEventsStream(await nc.jetstreamManager());
  } catch (err) {
    await temporal.close();
    throw err;
  }
  const store = new StoreClient(nc);
  const uiBase = temporalUiUrl();
  // The live read is started by some client's request but serves them all: its lines name no request.
  const reader = new PacedEventReader(
    nc,
    (seq, reason) => withoutLogFields(() => log.warn({ seq, reason }, 'skipped an invalid agent event')),
    (afterSeq, why) => withoutLogFields(() => log.warn({ afterSeq, why }, 'events read moved to a new consumer')),
  );
  const taskQueue = taskQueueFromEnv();
  const commands = new SessionCommands(temporal, taskQueue, config.sessionIdleTimeoutMs);
  const sessions = new SessionService({
    store,
    commands,
    reader,
    defaultModel: config.defaultModel,
    catalog: config.catalog,
    configuredProviders: config.configuredProviders,
    modelServers: config.modelServers,
    ...(deps.runnable ? { runnable: deps.runnable } : {}),
    images: createNatsPromptImageStore(nc),
    ...(config.defaultBudget ? { defaultBudget: config.defaultBudget } : {}),
  });
  const turns = new RunningTurns({ store, commands, catalog: sessions.models.catalog, defaultModel: config.defaultModel, workflowUrl: (jobId) => workflowUrl(uiBase, env.temporalNamespace, jobId) });
  return {
    nc,
    store,
    temporal,
    sessions,
    turns,
    jobs: new JobService({ temporal, taskQueue, store }),
    reader,
    async close() {
      reader.close();
      await temporal.close();
      await nc.drain();
    },
  };
}
