import * as wf from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { AgentEvent } from '../../contracts/agent-events';
import type { OutgoingEvent } from '../../activities/events/publisher';
import { storeRetry } from '../retry-policies';
import type { SessionState } from './session-state';

/** Small, fast side effects of the session workflow run in-process with it (~4 ms, no task hop). */
export const local = wf.proxyLocalActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: storeRetry });

/** A compaction is one model call plus a store write; a failed one is reported, not retried forever. */
export const COMPACTION_OPTIONS: wf.ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', maximumAttempts: 3, nonRetryableErrorTypes: ['provider.auth', 'provider.permanent', 'provider.context_overflow'] },
};
export const compaction = wf.proxyActivities<Activities>(COMPACTION_OPTIONS);

/**
 * A user's shell command: as long as its own timeout allows (at most an hour), heartbeating; a retry
 * only reports it as interrupted (it never runs twice). Cancelling waits for the activity to kill the
 * command and record what it printed.
 */
export const userCommands = wf.proxyActivities<Activities>({
  startToCloseTimeout: '65 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 2 },
  cancellationType: wf.ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
});

/**
 * Publishes the session's events in the order the workflow produced them: each publish waits for the
 * one before, so `turn.finished`/`idle` can never overtake the state that preceded them. Event ids are
 * workflow uuids: deterministic on replay, unique across runs (JetStream de-duplicates retried
 * publishes by them).
 */
export class SessionEventQueue {
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly sessionId: string) {}

  /** Resolves with the stream sequence of the first event, when the publisher knows it. */
  publish(events: Array<{ event: AgentEvent; turn_id?: string }>): Promise<{ first_seq?: number }> {
    const outgoing: OutgoingEvent[] = events.map((e) => ({ id: `s:${wf.uuid4()}`, event: e.event, ...(e.turn_id ? { turn_id: e.turn_id } : {}) }));
    const next = this.tail.then(() => local.publishEvents(this.sessionId, outgoing));
    this.tail = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }
}

/** The `session.state` event for the state as it is now. */
export function stateEvent(state: SessionState): AgentEvent {
  const settings = state.record?.settings;
  return {
    type: 'session.state',
    phase: state.phase,
    model: settings?.model ?? '',
    thinking_level: settings?.thinking_level ?? 'off',
    queue_length: state.queue.length,
    turn_id: state.activeTurn,
    streaming: state.streaming,
    retry_attempt: state.retryAttempt,
    ...(settings?.name ? { session_name: settings.name } : {}),
    ...(settings ? { auto_retry: settings.auto_retry, auto_compaction: settings.auto_compaction } : {}),
    ...(state.details ? { details: state.details } : {}),
    ...(state.interruptPending ? { interrupt_pending: true } : {}),
  };
}
