import type { OutgoingEvent } from '../../activities/events/publisher';
import type { TelemetryFailure } from '../../contracts/telemetry-snapshot';

/** How many failures a worker keeps for its telemetry snapshots. */
const RECENT_FAILURES = 50;
/**
 * A failure's message is cut to this many characters: a provider's error body can be long, and 50 of
 * them must fit a NATS message (1 MB by default) or no snapshot would be sent at all.
 */
export const MESSAGE_CHARS = 1_000;

/**
 * The turns this worker saw fail lately: every `error` event its activities stored, newest first, at
 * most `capacity`. Gateways merge the rings of all workers into the operator view's failure list
 * (services/gateway/operator/), so a ring only has to outlive a few snapshots, not the process.
 */
export class RecentFailures {
  private readonly items: TelemetryFailure[] = [];

  constructor(private readonly capacity = RECENT_FAILURES) {}

  /** Records `item` if it is an `error` event; the same event published again (a retried attempt) is kept once. */
  observe(sessionId: string, item: OutgoingEvent, at: number): void {
    const { event } = item;
    if (event.type !== 'error') return;
    if (this.items.some((f) => f.event_id === item.id && f.session_id === sessionId)) return;
    this.items.unshift({
      at,
      session_id: sessionId,
      turn_id: event.turn_id ?? item.turn_id ?? null,
      code: event.code,
      // A turn given up on because strand's own parts failed is reported as UNAVAILABLE with kind
      // `infrastructure` (workflows/turn/step-failure.ts); an older event without a kind says so by its code.
      kind: event.kind ?? (event.code === 'UNAVAILABLE' ? 'infrastructure' : null),
      provider: event.provider ?? null,
      status: event.status ?? null,
      message: event.message.length > MESSAGE_CHARS ? `${event.message.slice(0, MESSAGE_CHARS - 1)}…` : event.message,
      event_id: item.id,
    });
    if (this.items.length > this.capacity) this.items.length = this.capacity;
  }

  list(): TelemetryFailure[] {
    return [...this.items];
  }
}
