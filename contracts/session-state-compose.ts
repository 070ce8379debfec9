import type { AgentEvent } from './agent-events';
import type { AgentPhase } from './agent-phase';
import type { SessionStatePart } from './session-state-event';

/**
 * `session.state` as both its publishers build it (contracts/session-state-event.ts says who publishes
 * it when). Zod-free, so a turn run, which publishes states while it runs, evaluates no schema for it.
 */

/** Where the running turn is (or the session's own phase between turns). */
export interface StateProgress {
  phase: AgentPhase;
  turn_id: string | null;
  streaming: boolean;
  retry_attempt: number;
  details?: string | undefined;
}

export function composeSessionState(part: SessionStatePart, progress: StateProgress): AgentEvent {
  return {
    type: 'session.state',
    phase: progress.phase,
    model: part.model,
    thinking_level: part.thinking_level,
    queue_length: part.queue_length,
    turn_id: progress.turn_id,
    streaming: progress.streaming,
    retry_attempt: progress.retry_attempt,
    ...(part.session_name ? { session_name: part.session_name } : {}),
    ...(part.auto_retry !== undefined ? { auto_retry: part.auto_retry } : {}),
    ...(part.auto_compaction !== undefined ? { auto_compaction: part.auto_compaction } : {}),
    ...(progress.details ? { details: progress.details } : {}),
    ...(part.interrupt_pending ? { interrupt_pending: true } : {}),
  };
}
