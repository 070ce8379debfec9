import type { AgentEventPublisher, OutgoingEvent } from '../../activities/events/publisher';
import type { StorePort } from '../../activities/store/store-port';
import { SessionStore } from '../../services/session-store/domain/store';
import { MemoryStorage } from '../../services/session-store/storage/memory-storage';

/**
 * The store's real domain logic (the one every adapter's contract suite runs against) over in-memory
 * storage, exposed as the activities' StorePort: activity tests exercise real idempotency, branching
 * and metadata rules without a NATS round trip.
 */
export async function memoryStorePort(): Promise<{ port: StorePort; store: SessionStore }> {
  const store = new SessionStore(new MemoryStorage(), () => undefined, { default_list_limit: 50, max_list_limit: 500 });
  await store.load();
  const port: StorePort = {
    get: async (r) => store.get(r),
    setMeta: async (r) => store.setMeta(r),
    append: async (r) => store.append(r as Parameters<SessionStore['append']>[0]),
    getMessage: async (r) => store.getMessage(r),
    messages: async (r) => store.messages(r as Parameters<SessionStore['messages']>[0]),
  };
  return { port, store };
}

/** An event publisher that records what it was asked to publish, de-duplicating ids as JetStream does. */
export function recordingPublisher(): AgentEventPublisher & { events: OutgoingEvent[] } {
  const seen = new Set<string>();
  const events: OutgoingEvent[] = [];
  return {
    events,
    async publish(_sessionId, batch) {
      for (const e of batch) {
        if (seen.has(e.id)) continue;
        seen.add(e.id);
        events.push(e);
      }
    },
  };
}
