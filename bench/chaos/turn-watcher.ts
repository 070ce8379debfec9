import type { SseEvent } from '../../test/harness/sse-client';
import { ClientText } from './client-text';

/** One event as the client received it (`at`: performance.now()). */
export interface ObservedEvent {
  at: number;
  id?: string;
  event: string;
  data: Record<string, unknown>;
}

/**
 * Everything one SSE client of a trial saw: the text it holds (client-text.ts), when each delta and
 * each `turn.finished` arrived, and event ids that came twice. `until` lets the trial wait for a
 * point in the stream (the k-th delta, the first tool output, a turn's end).
 */
export class TurnWatcher {
  readonly text = new ClientText();
  readonly events: ObservedEvent[] = [];
  duplicateIds = 0;
  duplicateDeltaIds = 0;
  private readonly seen = new Set<string>();
  private readonly waiters = new Set<() => void>();

  readonly onEvent = (e: SseEvent): void => {
    let data: Record<string, unknown> = {};
    try {
      data = JSON.parse(e.data) as Record<string, unknown>;
    } catch {
      // Kept with no data: the event's name is still evidence.
    }
    if (e.id !== undefined) {
      if (this.seen.has(e.id)) {
        this.duplicateIds++;
        if (e.event === 'message.delta') this.duplicateDeltaIds++;
      }
      this.seen.add(e.id);
    }
    this.events.push({ at: performance.now(), id: e.id, event: e.event, data });
    this.text.apply(e.event, data);
    for (const wake of this.waiters) wake();
  };

  deltas(turn: string): ObservedEvent[] {
    return this.events.filter((e) => e.event === 'message.delta' && e.data.turn_id === turn);
  }

  finished(turn: string): ObservedEvent[] {
    return this.events.filter((e) => e.event === 'turn.finished' && e.data.turn_id === turn);
  }

  /** Resolves once `condition()` holds (checked now and after every event); rejects after `timeoutMs`. */
  until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!condition()) return;
        done();
        resolve();
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${what}: not seen within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
    });
  }

  /** The stream as `id:event` items, runs of deltas folded (`41-77:message.delta×37`): evidence for a failed trial. */
  timeline(): string {
    const out: string[] = [];
    for (let i = 0; i < this.events.length; ) {
      const e = this.events[i]!;
      let j = i + 1;
      while (j < this.events.length && this.events[j]!.event === e.event && e.event.endsWith('.delta')) j++;
      const last = this.events[j - 1]!;
      const detail = e.event === 'stream.reset' ? `(${String(e.data.step)})` : e.event === 'turn.finished' ? `(${String(e.data.turn_id)} ${String(e.data.outcome)})` : e.event === 'error' ? `(${String(e.data.message).slice(0, 160)})` : '';
      out.push(j - i > 1 ? `${e.id}-${last.id}:${e.event}×${j - i}` : `${e.id}:${e.event}${detail}`);
      i = j;
    }
    return out.join(' ');
  }
}
