import { z } from 'zod';

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

// Built by both publishers with a zod-free function a turn run imports without evaluating the schema above.
export { composeSessionState } from './session-state-compose';
