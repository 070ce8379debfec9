import type { Protocol } from './config';

/** How one prompt turn went, as its client saw it. Times are wall-clock ms (wallNow()). */
export interface TurnResult {
  protocol: Protocol;
  sessionId: string;
  promptAt: number;
  firstDeltaAt?: number;
  endAt: number;
  /** 'done' for a turn that finished normally; anything else is an error. */
  outcome: string;
  /** What went wrong: an error event or frame, a refused prompt, a timeout, a closed connection. */
  error?: string;
}

/** What a client reports while it runs, besides its turns' results. */
export interface ClientHooks {
  /** A streamed text delta received (non-empty), for the event latency (delta-latency.ts). */
  onDelta(sessionId: string, text: string, at: number): void;
  /** An error frame or event outside any turn's result (a protocol error, a dropped connection). */
  onError(protocol: Protocol, sessionId: string, message: string): void;
}

/** One soak session over one protocol: one connection, one session, one turn at a time. */
export interface SoakSession {
  readonly protocol: Protocol;
  readonly sessionId: string;
  /** Sends a prompt and resolves when the turn has ended (never rejects: failures are results). */
  turn(index: number, timeoutMs?: number): Promise<TurnResult>;
  close(): void;
}

/** Wall-clock milliseconds with sub-millisecond resolution, comparable with the services' Date.now(). */
export const wallNow = () => performance.timeOrigin + performance.now();
