import type { EventSubscription } from './agent-event-reader';

/**
 * A subscription that asks `ready` before it reads each next event: while the client is behind, its
 * events stay in JetStream instead of piling up in the gateway. When `ready` says no, the read stops.
 * A connection gets its reads gated by opening them through `SessionService.paced(ready)`.
 */
export function gateSubscription(subscription: EventSubscription, ready: () => Promise<boolean>): EventSubscription {
  return {
    stop: () => subscription.stop(),
    async *[Symbol.asyncIterator]() {
      try {
        for await (const event of subscription) {
          yield event;
          if (!(await ready())) return;
        }
      } finally {
        subscription.stop();
      }
    },
  };
}

