import type { NatsConnection } from 'nats';
import { TURN_CANCEL_SUBJECTS, turnCancelSubject } from '../../contracts/turn-cancel';

/** The fast path of an abort: announced by the turn, heard by the activities running it. */
export interface TurnCancelChannel {
  /** Calls `onCancel` when the turn is aborted; returns the function that stops listening. */
  watch(sessionId: string, turnId: string, onCancel: () => void): () => void;
  announce(sessionId: string, turnId: string): Promise<void>;
}

/**
 * The channel on a NATS connection. One subscription to every turn's abort subject, made at once,
 * and the activities' watches kept in a map by subject: a subscription per model step and tool call
 * cost each of them a SUB and an UNSUB on the connection, the server's interest updates and nats.js's
 * per-subscription objects (speed over the library's convenience: aborts are rare, so hearing every
 * turn's is cheap). It also leaves no window between a watch and the server knowing of it; the
 * connection subscribes again by itself after a reconnect.
 */
export function createNatsTurnCancelChannel(nc: NatsConnection): TurnCancelChannel {
  const watchers = new Map<string, Set<() => void>>();
  nc.subscribe(TURN_CANCEL_SUBJECTS, {
    callback: (err, msg) => {
      if (err) return;
      // A copy: a watcher may stop watching from its callback.
      for (const onCancel of [...(watchers.get(msg.subject) ?? [])]) onCancel();
    },
  });
  return {
    watch(sessionId, turnId, onCancel) {
      const subject = turnCancelSubject(sessionId, turnId);
      let set = watchers.get(subject);
      if (!set) watchers.set(subject, (set = new Set()));
      // Its own function, so the same callback watched twice is two watches.
      const watcher = () => onCancel();
      set.add(watcher);
      return () => {
        set.delete(watcher);
        if (set.size === 0 && watchers.get(subject) === set) watchers.delete(subject);
      };
    },
    async announce(sessionId, turnId) {
      nc.publish(turnCancelSubject(sessionId, turnId));
      // Flushed, so the message is on its way before the turn moves on.
      await nc.flush();
    },
  };
}
