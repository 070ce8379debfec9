import { Worker, type NativeConnection, type WorkerOptions as SdkWorkerOptions, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { NatsConnection } from 'nats';
import { createActivities } from '../../activities';
import { createWorkerCheckpoints } from '../../activities/checkpoints';
import { createJobActivities, jobsDirFromEnv } from '../../activities/job-workspace';
import { createJobAftercareActivities, jobRetentionHoursFromEnv } from '../../activities/job-notify';
import { createJobVisibilityActivities } from '../../activities/job-visibility';
import { createScheduleActivities } from '../../activities/schedules';
import { scheduleLedgerKv } from '../../contracts/schedule-ledger-kv';
import type { AgentEventPublisher } from '../../activities/events/publisher';
import { createKvToolLedger } from '../../activities/tool-calls/ledger';
import { createToolWiring } from './tool-wiring';
import { McpPool } from '../../activities/mcp/pool';
import { SessionMcp } from '../../activities/mcp/session-mcp';
import { createMcpStatusKv } from '../../contracts/mcp-status-kv';
import { createNatsTurnCancelChannel } from '../../activities/events/turn-cancel';
import { createJetStreamPublishedText } from '../../activities/events/jetstream-published-text';
import { createProviderRegistry } from '../../activities/providers/registry';
import { createKvSharedBackoff, sharedBackoffEnabled } from '../../activities/providers/shared-backoff-kv';
import { createLogger } from '../common/logger';
import { lookupModel, type ModelCatalog } from '../../contracts/model-catalog';
import { loadModelCatalog } from '../common/model-catalog-file';
import { ensureAgentEventsStream } from '../../contracts/agent-event-stream';
import { StoreClient } from '../../contracts/session-store/client';
import { createNatsPromptImageStore } from '../../contracts/prompt-image-store';
import type { RunningRegistry } from './crash-watch/running-registry';
import { workerTelemetry, type WorkerTelemetry } from './worker-telemetry';
import type { ShutdownTimes } from './shutdown-times';
import { hostTaskQueue } from './host-queue';
import { WorkerGroup } from './worker-group';

export interface WorkerOptions {
  /** How a polite stop hands back running activities (shutdown-times.ts); the SDK's defaults without it. */
  shutdown?: ShutdownTimes;
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  /** This host's id (host-queue.ts): the worker also polls `<taskQueue>@<host>`. */
  host: string;
  nc: NatsConnection;
  /** Where activities publish agent events (the worker's outbox: jetstream-outbox.ts). */
  events: AgentEventPublisher;
  bundle: WorkflowBundleWithSourceMap;
  /** Lists every running activity for the other workers' crash watchers (crash-watch/). */
  registry?: RunningRegistry;
  /** Pause between scripted deltas, so streams take visible time. */
  scriptedDeltaDelayMs: number;
  /** Metrics and traces (worker-telemetry.ts); the bundle must then carry the worker's interceptor modules. */
  telemetry?: WorkerTelemetry;
}

/** Limits of a model from the catalog (unknown ids: default limits, flagged). */
function modelInfo(catalog: ModelCatalog) {
  return (model: string) => {
    try {
      return lookupModel(catalog, model);
    } catch {
      return { context_window: 128_000, max_output_tokens: 8_192, known: false };
    }
  };
}

/**
 * Wires real adapters into the activities and creates the workers (not yet running): one on the
 * shared task queue, one on this host's (host-queue.ts), with the same workflows and activities.
 */
export async function createStrandWorker(opts: WorkerOptions): Promise<WorkerGroup> {
  await ensureAgentEventsStream(await opts.nc.jetstreamManager());
  // The same catalog and provider variables as the gateway (STRAND_MODELS_FILE, ANTHROPIC_*, OPENAI_*).
  const catalog = loadModelCatalog();
  // One backoff per provider key across sessions and workers (docs/provider-backoff.md); STRAND_PROVIDER_BACKOFF=off disables it.
  const backoffLog = createLogger('worker');
  const sharedBackoff = sharedBackoffEnabled(process.env) ? createKvSharedBackoff(opts.nc, { log: (level, m) => backoffLog[level](m) }) : undefined;
  const providers = createProviderRegistry({ env: process.env, catalog, scriptedOptions: { deltaDelayMs: opts.scriptedDeltaDelayMs }, ...(sharedBackoff ? { sharedBackoff } : {}) });
  const telemetry = opts.telemetry ? workerTelemetry(opts.telemetry) : undefined;
  const store = new StoreClient(opts.nc);
  // The sessions' MCP servers (docs/mcp.md): connections live in this worker, their state goes to a KV bucket for GET …/mcp.
  const mcp = new SessionMcp({ pool: new McpPool(), store, status: await createMcpStatusKv(opts.nc) });
  const activities = createActivities({
    store,
    mcp,
    events: telemetry ? telemetry.publisher(opts.events) : opts.events,
    providers,
    price: (model, usage) => providers.price(model, usage),
    modelInfo: modelInfo(catalog),
    ledger: await createKvToolLedger(opts.nc),
    // File checkpoints for undo (docs/undo.md), outside any project: STRAND_CHECKPOINT_DIR.
    checkpoints: createWorkerCheckpoints(opts.nc, store, (m) => backoffLog.warn(m)),
    ...createToolWiring(),
    cancels: createNatsTurnCancelChannel(opts.nc),
    publishedText: createJetStreamPublishedText(opts.nc),
    images: createNatsPromptImageStore(opts.nc),
  });
  const hostQueue = hostTaskQueue(opts.taskQueue, opts.host);
  const options: Omit<SdkWorkerOptions, 'taskQueue'> = {
    connection: opts.connection,
    namespace: opts.namespace,
    workflowBundle: opts.bundle,
    // Unattended jobs (docs/jobs.md): their workspaces under STRAND_JOBS_DIR, their sessions in the store;
    // their webhooks signed with secrets from this worker's environment, their workspaces kept STRAND_JOB_RETENTION_HOURS.
    activities: {
      ...activities,
      // A workspace made here names this host's queue: the job's later work comes back to this disk.
      ...createJobActivities({ jobsDir: jobsDirFromEnv(), store, hostTaskQueue: hostQueue }),
      ...createJobAftercareActivities({ env: process.env, retentionHours: jobRetentionHoursFromEnv() }),
      ...createJobVisibilityActivities({ connection: opts.connection, namespace: opts.namespace }),
      // Scheduled jobs' runs record themselves in their schedule's ledger (a NATS KV bucket).
      ...createScheduleActivities({ ledger: scheduleLedgerKv(opts.nc) }),
    },
    interceptors: { activity: [...(telemetry?.activityInterceptors ?? []), ...(opts.registry ? [opts.registry.interceptor()] : [])] },
    ...(telemetry ? { sinks: telemetry.sinks } : {}),
    // Each model step holds a slot while it streams; bounded so 2 cores are not oversubscribed.
    maxConcurrentActivityTaskExecutions: 50,
    // A polite stop finishes what it can, then hands the rest back (shutdown-times.ts); the SDK's
    // default grace of 0 cancelled every running step at the first SIGTERM.
    ...(opts.shutdown ? { shutdownGraceTime: opts.shutdown.graceMs, shutdownForceTime: opts.shutdown.forceMs } : {}),
    // Heartbeats reach Temporal every 0.5 s (the default throttle is 80 % of the heartbeat timeout, 12 s
    // for a step's or tool's 15 s): the crash watch confirms a dead worker by heartbeats frozen for
    // 0.75 s, and an abort carried by a heartbeat's reply reaches a streaming step fast.
    maxHeartbeatThrottleInterval: '500 milliseconds',
    defaultHeartbeatThrottleInterval: '500 milliseconds',
    // A workflow's next task goes first to the queue of the worker that has it cached. When that worker
    // died, Temporal hands the task to any worker only after this timeout (default 10 s), which is what
    // a crashed worker's turn waited for after its step's heartbeat had timed out. A live worker takes
    // its sticky tasks within milliseconds; one that misses this just replays the (small) history.
    stickyQueueScheduleToStartTimeout: '500 milliseconds',
    // Each cached session costs memory while it idles (see bench:control); an evicted one is replayed
    // from its (small) history on its next command. STRAND_WORKER_MAX_CACHED_WORKFLOWS bounds the cache.
    ...(cacheBound() ? { maxCachedWorkflows: cacheBound() } : {}),
  };
  // The host queue's worker polls workflows too, not only activities: a job's turns are child workflows
  // started on it (workflows/job/job-workflow.ts, runTurn), so their tools run on the workspace's host.
  return new WorkerGroup(await Promise.all([Worker.create({ ...options, taskQueue: opts.taskQueue }), Worker.create({ ...options, taskQueue: hostQueue })]));
}

/** The workflow cache bound from the environment, when one is set (the SDK's default scales with memory). */
function cacheBound(): number | undefined {
  const n = Number(process.env.STRAND_WORKER_MAX_CACHED_WORKFLOWS ?? '');
  return Number.isInteger(n) && n > 0 ? n : undefined;
}
