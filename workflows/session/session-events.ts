import * as wf from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { AgentEvent } from '../../contracts/agent-events';
import { composeSessionState, type SessionStatePart } from '../../contracts/session-state-event';
import type { SessionState } from './session-state';

/** Small, fast side effects of the session workflow run in-process with it (~4 ms, no task hop), one at a time. */
export { local } from '../local-activities';

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

/** The session's own part of `session.state`: what it hands a turn that publishes the state itself. */
export function statePart(state: SessionState): SessionStatePart {
  const settings = state.record?.settings;
  return {
    model: settings?.model ?? '',
    thinking_level: settings?.thinking_level ?? 'off',
    queue_length: state.queue.length,
    ...(settings?.name ? { session_name: settings.name } : {}),
    ...(settings ? { auto_retry: settings.auto_retry, auto_compaction: settings.auto_compaction } : {}),
    ...(state.interruptPending ? { interrupt_pending: true } : {}),
  };
}

/** The `session.state` event for the state as the session knows it now. */
export function stateEvent(state: SessionState): AgentEvent {
  return composeSessionState(statePart(state), {
    phase: state.phase,
    turn_id: state.activeTurn,
    streaming: state.streaming,
    retry_attempt: state.retryAttempt,
    details: state.details,
  });
}
