import type { EventSubscription } from './agent-event-reader';
import type { SessionService } from '../sessions/session-service';

/**
 * A subscription that asks `ready` before it reads each next event: while the client is behind, its
 * events stay in JetStream instead of piling up in the gateway. When `ready` says no, the read stops.
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

/**
 * The session service as one connection sees it: the same service, but every event read it opens is
 * gated by that connection's `ready`. Code that reads events through SessionService (a WebSocket's
 * chats) is paced by its socket without knowing about it.
 */
export function withGatedEvents(sessions: SessionService, ready: () => Promise<boolean>): SessionService {
  const gated = Object.create(sessions) as SessionService;
  gated.events = async (sessionId, afterSeq, principal) => gateSubscription(await sessions.events(sessionId, afterSeq, principal), ready);
  return gated;
}
