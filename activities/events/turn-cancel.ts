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
