import type { NatsConnection } from 'nats';
import { turnCancelSubject } from '../../contracts/turn-cancel';

/** The fast path of an abort: announced by the turn, heard by the activities running it. */
export interface TurnCancelChannel {
  /** Calls `onCancel` when the turn is aborted; returns the function that stops listening. */
  watch(sessionId: string, turnId: string, onCancel: () => void): () => void;
  announce(sessionId: string, turnId: string): Promise<void>;
}

export function createNatsTurnCancelChannel(nc: NatsConnection): TurnCancelChannel {
  return {
    watch(sessionId, turnId, onCancel) {
      const sub = nc.subscribe(turnCancelSubject(sessionId, turnId), { callback: () => onCancel() });
      return () => sub.unsubscribe();
    },
    async announce(sessionId, turnId) {
      nc.publish(turnCancelSubject(sessionId, turnId));
      // Flushed, so the message is on its way before the turn moves on.
      await nc.flush();
    },
  };
}

/** In-process channel for unit tests: same contract, no NATS. */
export function createMemoryTurnCancelChannel(): TurnCancelChannel {
  const watchers = new Map<string, Set<() => void>>();
  const key = (s: string, t: string) => `${s}\u0000${t}`;
  return {
    watch(sessionId, turnId, onCancel) {
      const k = key(sessionId, turnId);
      const set = watchers.get(k) ?? new Set();
      set.add(onCancel);
      watchers.set(k, set);
      return () => set.delete(onCancel);
    },
    async announce(sessionId, turnId) {
      for (const fn of watchers.get(key(sessionId, turnId)) ?? []) fn();
    },
  };
}
