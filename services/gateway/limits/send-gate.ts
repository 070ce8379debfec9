import type { EventSubscription } from '../events/agent-event-reader';
import type { SessionService } from '../sessions/session-service';

/** How often a waiting gate looks at a socket's unsent bytes (only while the client is behind). */
const POLL_MS = 20;

/**
 * The pacing rule of WritablePacer for a transport that only reports its unsent bytes (a
 * WebSocket's `bufferedAmount`): true at once under `limit`; at or over it, true once the count is
 * at half the limit, false if that takes longer than `ms` or the connection is `gone`.
 */
export async function waitForRoom(unsent: () => number, limit: number, ms: number, gone: () => boolean): Promise<boolean> {
  if (unsent() < limit) return !gone();
  const deadline = Date.now() + ms;
  while (!gone()) {
    if (unsent() <= limit / 2) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return false;
}

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
