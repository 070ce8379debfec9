import { Worker, type NativeConnection, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { NatsConnection } from 'nats';
import { createActivities } from '../../activities';
import { createJetStreamEventPublisher } from '../../activities/events/publisher';
import { createKvToolLedger } from '../../activities/tool-calls/ledger';
import { createToolWiring } from './tool-wiring';
import { createNatsTurnCancelChannel } from '../../activities/events/turn-cancel';
import { ProviderRegistry } from '../../activities/providers/registry';
import { createScriptedProvider } from '../../activities/providers/scripted';
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

/** The providers this build ships. Anthropic and OpenAI join with the providers issue. */
export function createProviderRegistry(scriptedDeltaDelayMs: number): ProviderRegistry {
  return new ProviderRegistry([createScriptedProvider({ deltaDelayMs: scriptedDeltaDelayMs })]);
}

/** Wires real adapters into the activities and creates the worker (not yet running). */
export async function createStrandWorker(opts: WorkerOptions): Promise<Worker> {
  await ensureAgentEventsStream(await opts.nc.jetstreamManager());
  const activities = createActivities({
    store: new StoreClient(opts.nc),
    events: createJetStreamEventPublisher(opts.nc.jetstream()),
    providers: createProviderRegistry(opts.scriptedDeltaDelayMs),
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
  });
}
