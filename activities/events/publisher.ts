import { headers as natsHeaders, type JetStreamClient } from 'nats';
import { EVENT_TYPE_HEADER, agentEventSubject } from '../../contracts/agent-event-stream';
import type { AgentEvent, AgentEventEnvelope } from '../../contracts/agent-events';

/** One event to publish, with the id JetStream de-duplicates retried publishes by. */
export interface OutgoingEvent {
  /** Deterministic per logical event (e.g. `t3:s0:a1:d7`), so an activity retry never doubles it. */
  id: string;
  turn_id?: string;
  attempt?: number;
  event: AgentEvent;
}

/** Port through which activities publish agent events; tests pass an in-memory recorder. */
export interface AgentEventPublisher {
  /** Resolves once every event is stored; with the stream sequence of the first one when known. */
  publish(sessionId: string, events: OutgoingEvent[]): Promise<{ first_seq?: number } | void>;
}

/** Most acks we wait for at once: enough to keep a token stream flowing, bounded to spare memory. */
const MAX_IN_FLIGHT = 64;

/**
 * Publishes to the agent-events JetStream stream. Publishes are pipelined (acks awaited in batches)
 * because one connection keeps them in order; a failed ack rejects, so the activity retries and the
 * msgID de-duplication drops whatever had already been stored.
 */
export function createJetStreamEventPublisher(js: JetStreamClient, now: () => number = Date.now): AgentEventPublisher {
  return {
    async publish(sessionId, events) {
      const subject = agentEventSubject(sessionId);
      let inFlight: Promise<unknown>[] = [];
      let first: Promise<{ seq: number }> | undefined;
      for (const item of events) {
        const envelope: AgentEventEnvelope = {
          v: 1,
          session_id: sessionId,
          ts: now(),
          event: item.event,
          ...(item.turn_id !== undefined ? { turn_id: item.turn_id } : {}),
          ...(item.attempt !== undefined ? { attempt: item.attempt } : {}),
        };
        const h = natsHeaders();
        h.set(EVENT_TYPE_HEADER, item.event.type);
        const ack = js.publish(subject, JSON.stringify(envelope), { msgID: `${sessionId}|${item.id}`, headers: h });
        first ??= ack;
        inFlight.push(ack);
        if (inFlight.length >= MAX_IN_FLIGHT) {
          await Promise.all(inFlight);
          inFlight = [];
        }
      }
      await Promise.all(inFlight);
      // A duplicate (a retried publish) acks with the sequence the event was first stored under.
      return first ? { first_seq: (await first).seq } : {};
    },
  };
}
