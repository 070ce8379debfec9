import * as wf from '@temporalio/workflow';
import type { AgentEvent } from '../contracts/agent-events';
import type { OutgoingEvent } from '../activities/events/publisher';
import { local } from './local-activities';


/**
 * Publishes a workflow's events in the order the workflow produced them: each publish waits for the
 * one before, so a later event (`turn.finished`, a step's state) can never overtake an earlier one, even
 * when a signal handler publishes while the main loop does. Event ids are `<prefix>:<workflow uuid>`:
 * deterministic on replay, unique across runs (JetStream de-duplicates retried publishes by them).
 */
export class EventQueue {
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly sessionId: string,
    private readonly idPrefix: string,
  ) {}

  /** Resolves with the stream sequence of the first event, when the publisher knows it. */
  publish(events: Array<{ event: AgentEvent; turn_id?: string | undefined }>): Promise<{ first_seq?: number }> {
    const outgoing: OutgoingEvent[] = events.map((e) => ({ id: `${this.idPrefix}:${wf.uuid4()}`, event: e.event, ...(e.turn_id ? { turn_id: e.turn_id } : {}) }));
    const next = this.tail.then(() => local.publishEvents(this.sessionId, outgoing));
    this.tail = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }
}
