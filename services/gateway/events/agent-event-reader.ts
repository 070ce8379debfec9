import { DeliverPolicy, type NatsConnection } from 'nats';
import { AGENT_EVENTS_STREAM, agentEventSubject } from '../../../contracts/agent-event-stream';
import { agentEventEnvelopeSchema, type AgentEventEnvelope } from '../../../contracts/agent-events';

/** One event as read back from JetStream, with the sequence clients resume from. */
export interface SequencedEvent {
  seq: number;
  envelope: AgentEventEnvelope;
}

/** An open replay-then-live read of one session's events. */
export interface EventSubscription extends AsyncIterable<SequencedEvent> {
  stop(): void;
}

/**
 * Reads a session's agent events from JetStream with an ordered consumer, which recreates itself at
 * the right sequence after a gap or reconnect. The consumer exists once `open` resolves, so a caller
 * that answers its client only afterwards never misses an event published in between.
 */
export class AgentEventReader {
  constructor(
    private readonly nc: NatsConnection,
    private readonly onInvalid: (seq: number, reason: string) => void = () => undefined,
  ) {}

  /**
   * Opens a read after `afterSeq` (every later event, then live ones), or, without it, of live
   * events only.
   */
  async open(sessionId: string, afterSeq?: number): Promise<EventSubscription> {
    let start: number;
    if (afterSeq !== undefined) {
      start = afterSeq + 1;
    } else {
      const jsm = await this.nc.jetstreamManager();
      start = (await jsm.streams.info(AGENT_EVENTS_STREAM)).state.last_seq + 1;
    }
    const consumer = await this.nc.jetstream().consumers.get(AGENT_EVENTS_STREAM, {
      filterSubjects: agentEventSubject(sessionId),
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: start,
    });
    const messages = await consumer.consume();
    const onInvalid = this.onInvalid;
    return {
      stop: () => messages.stop(),
      async *[Symbol.asyncIterator]() {
        for await (const m of messages) {
          let body: unknown;
          try {
            body = m.json();
          } catch {
            onInvalid(m.seq, 'not JSON');
            continue;
          }
          const parsed = agentEventEnvelopeSchema.safeParse(body);
          if (!parsed.success) {
            onInvalid(m.seq, parsed.error.issues[0]?.message ?? 'invalid envelope');
            continue;
          }
          yield { seq: m.seq, envelope: { ...parsed.data, seq: m.seq } };
        }
      },
    };
  }
}
