import type { AgentEventPublisher, OutgoingEvent } from './publisher';

/**
 * Most publishes awaiting their ack at once: a token stream keeps flowing (and the provider keeps being
 * read) through a NATS outage of a minute at a hundred deltas a second, and memory stays bounded
 * (a delta is a few hundred bytes). Past it, `push` waits for acks.
 */
const MAX_IN_FLIGHT = 8_192;

/**
 * Publishes a stream of events one by one as they happen, without waiting for each ack (a client
 * sees the first delta as soon as the provider sends it), in order (one connection keeps order), with
 * a bound on outstanding acks. The publisher waits out NATS outages (jetstream-outbox.ts); a publish
 * that fails anyway is reported by the next `push` or by `flush`, so the activity fails and its retry
 * republishes under the same ids (JetStream drops the duplicates).
 */
export class StreamPublisher {
  private inFlight: Promise<void>[] = [];
  private failure: unknown;

  /**
   * `after`: what must be stored before this stream's first event is published (a model step's
   * `turn.started` and prompt), so the work before the first event can overlap it. Pushes wait for
   * it, in order; if it fails, every push throws its error.
   */
  constructor(
    private readonly publisher: AgentEventPublisher,
    private readonly sessionId: string,
    private after?: Promise<unknown>,
  ) {}

  async push(event: OutgoingEvent): Promise<void> {
    if (this.after) {
      // Every push waiting here resumes in the order it arrived (one promise's reactions run in order).
      await this.after;
      this.after = undefined;
    }
    if (this.failure !== undefined) throw this.failure;
    const sent = this.publisher.publish(this.sessionId, [event]).then(
      () => undefined,
      (err: unknown) => {
        this.failure ??= err;
      },
    );
    this.inFlight.push(sent);
    if (this.inFlight.length >= MAX_IN_FLIGHT) await this.drain();
  }

  /** Waits for every outstanding ack; throws the first failure. */
  async flush(): Promise<void> {
    await this.drain();
    if (this.failure !== undefined) throw this.failure;
  }

  private async drain(): Promise<void> {
    const pending = this.inFlight;
    this.inFlight = [];
    await Promise.all(pending);
  }
}
