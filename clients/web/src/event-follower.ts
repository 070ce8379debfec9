import type { HttpEventData } from '../../../contracts/http-events';
import { followEvents as follow, type FollowState } from '../../core/event-follower';
import { gateway } from './api';

/** Where the followed stream stands, for the connection indicator. */
export type ConnectionState = FollowState;

export interface FollowHandlers {
  /** One event of the session, in order, each once. */
  onEvent(seq: number, data: HttpEventData): void;
  onState(state: ConnectionState): void;
  /** The stream cannot be followed (unknown session, token refused): it stopped. */
  onFatal(status: number, message: string): void;
}

/** The wait before the next attempt, cut short when the browser says the network is back. */
function pauseUntilOnline(ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      window.removeEventListener('online', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    window.addEventListener('online', done);
  });
}

/**
 * The page's follower of `GET /api/sessions/{id}/events`: the clients' one follower
 * (clients/core/event-follower.ts) with the page's token, no HTTP cache, and a backoff cut short when
 * the network comes back. With fetch, since EventSource cannot send the Authorization header. `after`:
 * where the first connection starts (0: the session's whole stream), instead of the turn in progress.
 */
export function followEvents(sessionId: string, handlers: FollowHandlers, after?: number): { close(): void } {
  return follow({
    ...(after !== undefined ? { after } : {}),
    url: gateway.url(`/api/sessions/${encodeURIComponent(sessionId)}/events`),
    headers: (extra) => gateway.headers(extra),
    init: { cache: 'no-store' },
    pause: pauseUntilOnline,
    onEvent: handlers.onEvent,
    onState: handlers.onState,
    onFatal: handlers.onFatal,
  });
}
