import { z } from 'zod';
import type { AgentEvent } from './agent-events';
import type { AgentPhase } from './agent-phase';

/**
 * `session.state` has two sources: the session's own facts (settings, queue, a pending interrupt) and
 * the running turn's progress (phase, streaming, retry). While a turn that publishes its own state
 * runs, the session hands it its part (at the start, then whenever it changes) and the turn publishes
 * every state: one publisher, so a state can never overtake the step it announces nor be overtaken by
 * an older one. Both sides build the event with `composeSessionState`.
 */
export const sessionStatePartSchema = z.object({
  model: z.string(),
  thinking_level: z.string(),
  queue_length: z.number().int().nonnegative(),
  session_name: z.string().optional(),
  auto_retry: z.boolean().optional(),
  auto_compaction: z.boolean().optional(),
  interrupt_pending: z.boolean().optional(),
});
export type SessionStatePart = z.infer<typeof sessionStatePartSchema>;

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
