import { connect, type NatsConnection, type Subscription } from 'nats';
import { AGENT_EVENTS_SUBJECTS, EVENT_TYPE_HEADER } from '../../contracts/agent-event-stream';

interface Seen {
  text: string;
  at: number;
}

/**
 * Event latency of the streamed deltas: from the event's publication (its envelope `ts`, set by the
 * worker right before the JetStream publish) to the client's receipt. SSE and WebSocket frames do not
 * carry that `ts`, so a direct NATS subscriber in this process reads it from every `assistant.delta`
 * envelope, and the n-th delta a client received for a session is paired with the n-th the
 * subscriber saw for it (per-session order is the stream's order on both sides); a pair whose texts
 * differ is counted as mismatched, not measured. Either side may come first.
 */
export class DeltaLatency {
  /** Publish → client receipt, ms, of the pairs completed while `recording`. */
  readonly samples: number[] = [];
  mismatched = 0;
  recording = false;
  private readonly published = new Map<string, Seen[]>();
  private readonly received = new Map<string, Seen[]>();
  private nc?: NatsConnection;
  private sub?: Subscription;

  async listen(natsUrl: string): Promise<void> {
    this.nc = await connect({ servers: natsUrl, name: 'soak-delta-latency' });
    const decoder = new TextDecoder();
    this.sub = this.nc.subscribe(AGENT_EVENTS_SUBJECTS, {
      callback: (_err, msg) => {
        // The header lets every other event pass without being parsed.
        if (msg.headers?.get(EVENT_TYPE_HEADER) !== 'assistant.delta') return;
        const env = JSON.parse(decoder.decode(msg.data)) as { session_id: string; ts: number; event: { text?: string } };
        if (env.event.text) this.match(this.published, this.received, env.session_id, { text: env.event.text, at: env.ts }, true);
      },
    });
  }

  /** A client received a delta of `sessionId` at `at` (wallNow()). */
  readonly clientDelta = (sessionId: string, text: string, at: number): void => {
    this.match(this.received, this.published, sessionId, { text, at }, false);
  };

  /** Deltas one side saw that the other has not (yet): non-zero at the end means lost or extra deltas. */
  unpaired(): { published: number; received: number } {
    const count = (m: Map<string, Seen[]>) => [...m.values()].reduce((n, l) => n + l.length, 0);
    return { published: count(this.published), received: count(this.received) };
  }

  async close(): Promise<void> {
    this.sub?.unsubscribe();
    await this.nc?.close();
  }

  private match(own: Map<string, Seen[]>, other: Map<string, Seen[]>, sessionId: string, seen: Seen, isPublish: boolean): void {
    const waiting = other.get(sessionId);
    const partner = waiting?.shift();
    if (!partner) {
      let list = own.get(sessionId);
      if (!list) own.set(sessionId, (list = []));
      list.push(seen);
      return;
    }
    if (partner.text !== seen.text) {
      this.mismatched++;
      return;
    }
    const [published, received] = isPublish ? [seen, partner] : [partner, seen];
    if (this.recording) this.samples.push(received.at - published.at);
  }
}
