import type { AgentEventPublisher, OutgoingEvent } from './publisher';

/** Most publishes awaiting their ack at once: keeps a token stream flowing, bounds memory. */
const MAX_IN_FLIGHT = 256;

/**
 * Publishes a stream of events one by one as they happen, without waiting for each ack (a client
 * sees the first delta as soon as the provider sends it), in order (one connection keeps order), with
 * a bound on outstanding acks. A failed publish is reported by the next `push` or by `flush`, so the
 * activity fails and its retry republishes under the same ids (JetStream drops the duplicates).
 */
export class StreamPublisher {
  private inFlight: Promise<void>[] = [];
  private failure: unknown;

  constructor(
    private readonly publisher: AgentEventPublisher,
    private readonly sessionId: string,
  ) {}

  async push(event: OutgoingEvent): Promise<void> {
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
