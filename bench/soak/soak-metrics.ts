import type { Protocol } from './config';
import type { TurnResult } from './turn-result';

/** One error as soak.json lists it. `at`: seconds from the measured run's start (negative: warm-up). */
export interface SoakError {
  at: number;
  protocol: Protocol;
  session: string;
  message: string;
}

/**
 * What the sessions' loops report, kept for the report: turns ended inside the measured window (for
 * turns/s), first-delta latencies of turns prompted inside it, and every error from the first turn on
 * (warm-up included: errors must be 0 over the whole run).
 */
export class SoakMetrics {
  /** Wall-clock ms when the measured run started; undefined during the warm-up. */
  startedAt?: number;
  endedAt?: number;
  readonly turnEnds: number[] = [];
  readonly turnsBy: Record<Protocol, number> = { sse: 0, ws: 0, edn: 0 };
  readonly firstDeltaMs: number[] = [];
  readonly firstDeltaBy: Record<Protocol, number[]> = { sse: [], ws: [], edn: [] };
  readonly errors: SoakError[] = [];
  warmupTurns = 0;
  /** Turns without a delta at the client (counted as errors too: every turn streams text). */
  noDelta = 0;

  private inWindow(at: number): boolean {
    return this.startedAt !== undefined && at >= this.startedAt && (this.endedAt === undefined || at <= this.endedAt);
  }

  private rel(at: number): number {
    return Math.round(((at - (this.startedAt ?? at)) / 1000) * 10) / 10;
  }

  readonly turn = (r: TurnResult): void => {
    const failed = r.error !== undefined || r.outcome !== 'done';
    if (failed) this.error(r.protocol, r.sessionId, `turn ${r.outcome}: ${r.error ?? ''}`, r.endAt);
    else if (r.firstDeltaAt === undefined) {
      this.noDelta++;
      this.error(r.protocol, r.sessionId, 'a turn finished without any delta at the client', r.endAt);
    }
    if (this.startedAt === undefined) {
      this.warmupTurns++;
      return;
    }
    if (r.firstDeltaAt === undefined) return;
    if (!failed && this.inWindow(r.endAt)) {
      this.turnEnds.push(r.endAt);
      this.turnsBy[r.protocol]++;
    }
    if (this.inWindow(r.promptAt)) {
      this.firstDeltaMs.push(r.firstDeltaAt - r.promptAt);
      this.firstDeltaBy[r.protocol].push(r.firstDeltaAt - r.promptAt);
    }
  };

  readonly error = (protocol: Protocol, session: string, message: string, at = performance.timeOrigin + performance.now()): void => {
    this.errors.push({ at: this.rel(at), protocol, session, message: message.slice(0, 500) });
  };

  /** Turns that ended in [from, to) seconds of the measured run. */
  turnsBetween(fromS: number, toS: number): number {
    const base = this.startedAt ?? 0;
    return this.turnEnds.filter((t) => t >= base + fromS * 1000 && t < base + toS * 1000).length;
  }
}
