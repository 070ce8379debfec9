import type { HttpEventData } from '../../contracts/http-events';
import { followEvents as follow, type FollowedEvents, type FollowState } from '../../clients/core/event-follower';
import type { GatewayClient } from './gateway-client';

/** Where a followed stream stands, for the status line. */
export type StreamStatus = FollowState;

export interface EventStreamHandlers {
  /** One event of the session, in order, each once (its sequence number from the frame's id). */
  onEvent(seq: number, data: HttpEventData): void;
  /** Every change of the connection: a client shows it and re-reads what events do not carry. */
  onStatus?(status: StreamStatus): void;
  /** The stream cannot be followed at all (the session is unknown, the token refused): it stopped. */
  onFatal?(message: string, status: number): void;
}

export type FollowedStream = FollowedEvents;

/**
 * The terminal chat's follower of a session's events: the clients' one follower
 * (clients/core/event-follower.ts) with the chat's gateway address and token. Without `after` the
 * first connection starts with the turn in progress, if any, then goes live.
 */
export function followEvents(client: GatewayClient, sessionId: string, handlers: EventStreamHandlers, after?: number): FollowedStream {
  return follow({
    url: client.url(`/api/sessions/${encodeURIComponent(sessionId)}/events`),
    headers: (extra) => client.headers(extra),
    ...(after !== undefined ? { after } : {}),
    onEvent: handlers.onEvent,
    ...(handlers.onStatus ? { onState: handlers.onStatus } : {}),
    ...(handlers.onFatal ? { onFatal: (status: number, message: string) => handlers.onFatal?.(message, status) } : {}),
  });
}
