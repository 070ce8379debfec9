import { z } from 'zod';

/**
 * The phases a session moves through; `session.state` reports the current one. A module of its own
 * (re-exported by agent-events.ts) so that the workflow bundle, which needs only this enum, does not
 * evaluate the whole event union for every workflow it starts.
 */
export const agentPhaseSchema = z.enum(['idle', 'thinking', 'tool_execution', 'waiting_approval', 'retrying', 'compacting', 'error', 'waiting_budget']);
export type AgentPhase = z.infer<typeof agentPhaseSchema>;
