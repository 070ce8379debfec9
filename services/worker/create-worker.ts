import { Worker, type NativeConnection, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { NatsConnection } from 'nats';
import { createActivities } from '../../activities';
import { createJetStreamEventPublisher } from '../../activities/events/publisher';
import { createKvToolLedger } from '../../activities/tool-calls/ledger';
import { createToolWiring } from './tool-wiring';
import { createNatsTurnCancelChannel } from '../../activities/events/turn-cancel';
import { createProviderRegistry } from '../../activities/providers/registry';
import { lookupModel, type ModelCatalog } from '../../contracts/model-catalog';
import { loadModelCatalog } from '../common/model-catalog-file';
import { ensureAgentEventsStream } from '../../contracts/agent-event-stream';
import { StoreClient } from '../../contracts/session-store/client';

export interface WorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  nc: NatsConnection;
  bundle: WorkflowBundleWithSourceMap;
  /** Pause between scripted deltas, so streams take visible time. */
  scriptedDeltaDelayMs: number;
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

/** Wires real adapters into the activities and creates the worker (not yet running). */
export async function createStrandWorker(opts: WorkerOptions): Promise<Worker> {
  await ensureAgentEventsStream(await opts.nc.jetstreamManager());
  // The same catalog and provider variables as the gateway (STRAND_MODELS_FILE, ANTHROPIC_*, OPENAI_*).
  const catalog = loadModelCatalog();
  const providers = createProviderRegistry({ env: process.env, catalog, scriptedOptions: { deltaDelayMs: opts.scriptedDeltaDelayMs } });
  const activities = createActivities({
    store: new StoreClient(opts.nc),
    events: createJetStreamEventPublisher(opts.nc.jetstream()),
    providers,
    price: (model, usage) => providers.price(model, usage),
    modelInfo: modelInfo(catalog),
    ledger: await createKvToolLedger(opts.nc),
    ...createToolWiring(),
    cancels: createNatsTurnCancelChannel(opts.nc),
  });
  return Worker.create({
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    workflowBundle: opts.bundle,
    activities,
    // Each model step holds a slot while it streams; bounded so 2 cores are not oversubscribed.
    maxConcurrentActivityTaskExecutions: 50,
    // Heartbeats carry cancellation: at most 1 s between them, so an abort reaches a streaming step fast
    // (the default throttle is 80 % of the heartbeat timeout).
    maxHeartbeatThrottleInterval: '1 second',
    defaultHeartbeatThrottleInterval: '1 second',
    // Each cached session costs memory while it idles (see bench:control); an evicted one is replayed
    // from its (small) history on its next command. STRAND_WORKER_MAX_CACHED_WORKFLOWS bounds the cache.
    ...(cacheBound() ? { maxCachedWorkflows: cacheBound() } : {}),
  });
}

/** The workflow cache bound from the environment, when one is set (the SDK's default scales with memory). */
function cacheBound(): number | undefined {
  const n = Number(process.env.STRAND_WORKER_MAX_CACHED_WORKFLOWS ?? '');
  return Number.isInteger(n) && n > 0 ? n : undefined;
}
