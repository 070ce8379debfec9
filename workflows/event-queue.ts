import * as wf from '@temporalio/workflow';
import type { AgentEvent } from '../contracts/agent-events';
import type { OutgoingEvent, PublishedSeqs } from '../activities/events/publisher';
import type { PublishTurnStateInput } from '../activities/events/turn-state-report';
import { local } from './local-activities';


/**
 * Publishes a workflow's events in the order the workflow produced them: each publish waits for the
 * one before, so a later event (`turn.finished`, a step's state) can never overtake an earlier one, even
 * when a signal handler publishes while the main loop does. Event ids are `<prefix>:<workflow uuid>`:
 * deterministic on replay, unique across runs (JetStream de-duplicates retried publishes by them).
 */
export class EventQueue {
  private tail: Promise<void> = Promise.resolve();
  /**
   * The stream sequence of the last event this queue stored, once every publish asked for has settled;
   * null while unknown (nothing published yet, a publisher that did not say, a failed publish). Read
   * from the local activities' recorded results, so replay sees the same.
   */
  lastSeq: number | null = null;

  constructor(
    private readonly sessionId: string,
    private readonly idPrefix: string,
    /** Where a run continued as new had left off (its last event's sequence). */
    carriedLastSeq?: number,
  ) {
    this.lastSeq = carriedLastSeq ?? null;
  }

  /**
   * Resolves with the stream sequences of the first and the last event, when the publisher knows them.
   * With `report`: a turn's state, reported to its session by the same local activity once stored.
   */
  publish(events: Array<{ event: AgentEvent; turn_id?: string | undefined; id?: string }>, report?: PublishTurnStateInput['report']): Promise<PublishedSeqs> {
    // An event may bring its own id: one that must be stored once with an event published elsewhere under that id.
    const outgoing: OutgoingEvent[] = events.map((e) => ({ id: e.id ?? `${this.idPrefix}:${wf.uuid4()}`, event: e.event, ...(e.turn_id ? { turn_id: e.turn_id } : {}) }));
    const next = this.tail.then(() => (report ? local.publishTurnState({ session_id: this.sessionId, events: outgoing, report }) : local.publishEvents(this.sessionId, outgoing)));
    this.tail = next.then(
      (seqs) => void (this.lastSeq = seqs.last_seq ?? null),
      () => void (this.lastSeq = null),
    );
    return next;
  }

  /** Resolves once every publish asked for so far has settled (at once, with no command, when none is in flight). */
  drained(): Promise<void> {
    return this.tail;
  }
}
