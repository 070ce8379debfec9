import type { AgentEventPublisher, OutgoingEvent } from './events/publisher';
import { createStreamModelStep, type StreamModelStepDeps } from './providers/stream-model-step';
import type { ProviderRegistry } from './providers/registry';
import { createSessionStoreActivities } from './store/session-activities';
import type { StorePort } from './store/store-port';

/** Everything activities touch, injected so tests pass fakes and the worker passes real clients. */
export interface ActivityDeps extends Pick<StreamModelStepDeps, 'price' | 'systemPrompt' | 'tools' | 'heartbeatMs' | 'stallMs'> {
  store: StorePort;
  events: AgentEventPublisher;
  providers: ProviderRegistry;
  now?: () => number;
}

/**
 * Builds every activity the workflows call. Workflows import only the type of the returned object
 * (`Activities`), never this code.
 */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createSessionStoreActivities(deps.store, deps.now),
    streamModelStep: createStreamModelStep(deps),
    /** Publishes workflow-level events (state changes, turn start/finish) with deterministic ids. */
    async publishEvents(sessionId: string, events: OutgoingEvent[]): Promise<void> {
      await deps.events.publish(sessionId, events);
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
