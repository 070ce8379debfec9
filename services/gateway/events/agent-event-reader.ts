import type { AgentEventEnvelope } from '../../../contracts/agent-events';

/** One event as read back from JetStream, with the sequence clients resume from. */
export interface SequencedEvent {
  seq: number;
  envelope: AgentEventEnvelope;
}

/** What a taker answers for one event: `false` ends the delivery; a promise holds the next event back until it settles (and ends the delivery if it settles to `false`). */
export type TakerAnswer = void | boolean | Promise<void | boolean>;

/** A push consumer of events: it handles one event when called (the consumer's back-pressure is its answer). */
export type EventTaker = (event: SequencedEvent) => TakerAnswer;

/** Whether a taker's answer ends the delivery: `false`, or a promise that settles to `false`. */
export async function endsDelivery(answer: TakerAnswer): Promise<boolean> {
  return (await answer) === false;
}

/** An open replay-then-live read of one session's events. */
export interface EventSubscription extends AsyncIterable<SequencedEvent> {
  stop(): void;
  /**
   * Where a read can push: calls `take` with every event in order until the read ends or is stopped
   * (then it resolves), as early as it can (a reader joined to a session's shared feed is called in
   * the same tick the event arrives, with no promise per event). It stops the subscription when it
   * ends. Use `deliverEvents`, which falls back to iterating. One subscription is either delivered or
   * iterated, not both.
   */
  deliver?(take: EventTaker): Promise<void>;
}

/**
 * Hands every event of `subscription` to `take` in order, pushed where the subscription can push and
 * iterated otherwise, until the read ends or `take` ends it (then the subscription is stopped).
 */
export async function deliverEvents(subscription: EventSubscription, take: EventTaker): Promise<void> {
  if (subscription.deliver) return subscription.deliver(take);
  try {
    for await (const event of subscription) if (await endsDelivery(take(event))) return;
  } finally {
    subscription.stop();
  }
}

/**
 * Opens reads of one session's agent events: after `afterSeq` (every later event, then live ones),
 * or, without it, of live events only. The read exists once `open` resolves, so a caller that answers
 * its client only afterwards never misses an event published in between. The gateway's is
 * PacedEventReader (paced-event-reader.ts).
 */
export interface AgentEventReader {
  open(sessionId: string, afterSeq?: number): Promise<EventSubscription>;
}
