import { z } from 'zod';
import { TASK_TOOL } from './subagent-policy';

/**
 * Durable subagents (docs/subagents.md): the `task` tool runs a sub-agent as a child workflow of the
 * turn that called it, on a sub-session of its own. Pure: the workflow, the activities and the
 * gateway read these names, ids and words.
 */

// The rules a turn run applies live in a zod-free module it imports without evaluating the schemas here.
export { SUBAGENT_TOOLS, TASK_TOOL, subagentPolicy, subagentRefusal } from './subagent-policy';

/** What the model sends: a few words for the UI, and the whole instruction for the sub-agent. */
export const taskParamsSchema = z.strictObject({
  description: z.string().min(1).max(200).describe('A short label for the task (3-8 words), shown to the user while it runs.'),
  prompt: z
    .string()
    .min(1)
    .describe('The complete instruction for the sub-agent: it sees nothing of this conversation, so say what to look for, where, and what to report back.'),
});

/** A sub-agent's step limit when STRAND_SUBAGENT_MAX_STEPS does not say. */
export const DEFAULT_SUBAGENT_MAX_STEPS = 20;

/** The step limit from the worker's environment (a positive integer), else the default. */
export function subagentMaxStepsFromEnv(env: Record<string, string | undefined>): number {
  const n = Number(env.STRAND_SUBAGENT_MAX_STEPS?.trim());
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_SUBAGENT_MAX_STEPS;
}

/** Metadata keys of a sub-session: which session, turn and tool call started it. */
export const SUBAGENT_METADATA_KEYS = {
  parentSession: 'strand.parent_session',
  parentTurn: 'strand.parent_turn',
  parentToolCall: 'strand.parent_tool_call',
} as const;

/** Separates the parts of a sub-session id (`<parent>~task~<turn>~<call>`); not used by session ids strand makes. */
const SEP = '~task~';

/**
 * The sub-session of one `task` call: derived from the parent session, turn and call, so a retried
 * activity or a replayed parent finds the same one. The worker routes its events to the parent's
 * stream by this id alone (activities/events/subagent-routing.ts).
 */
export function subagentSessionId(parentSessionId: string, parentTurnId: string, toolCallId: string): string {
  return `${parentSessionId}${SEP}${parentTurnId}~${toolCallId}`;
}

/** The parent of a sub-session id made by `subagentSessionId`; undefined for any other id. */
export function parseSubagentSessionId(sessionId: string): { parent_session_id: string; parent_turn_id: string; tool_call_id: string } | undefined {
  const at = sessionId.lastIndexOf(SEP);
  if (at <= 0) return undefined;
  const match = /^(t[1-9][0-9]*)~(.+)$/.exec(sessionId.slice(at + SEP.length));
  if (!match) return undefined;
  return { parent_session_id: sessionId.slice(0, at), parent_turn_id: match[1]!, tool_call_id: match[2]! };
}

/**
 * The additive envelope field of a subagent's event on its parent's stream: which `task` call it
 * belongs to and the sub-session it ran on. The event itself is the sub-agent's (its own `turn_id`,
 * steps and call ids); the envelope's `turn_id` is the parent's turn.
 */
export const subagentMarkerSchema = z.object({
  tool_call_id: z.string(),
  session_id: z.string(),
});
export type SubagentMarker = z.infer<typeof subagentMarkerSchema>;

/** What a turn run as a sub-agent is told (an optional turn workflow input: older turns have none). */
export const subagentRunSchema = z.object({
  parent_session_id: z.string(),
  parent_turn_id: z.string(),
  tool_call_id: z.string(),
  /** The only tools offered and run; any other call is refused with `subagentRefusal`. */
  tools: z.array(z.string()),
});
export type SubagentRun = z.infer<typeof subagentRunSchema>;

/** Token and cost fields of a sub-agent's usage (as `usage` events and stored messages carry them). */
export interface SubagentUsage {
  input?: number | null;
  output?: number | null;
  cache_read?: number | null;
  cache_write?: number | null;
  cost_usd?: number | null;
}

/**
 * What a sub-agent spent, from its task call's stored result (`details.subagent.usage`); undefined
 * for any other message. The budget check and the session's stats add it to the parent's own steps,
 * so a session's spending includes its sub-agents'.
 */
export function subagentUsageOf(message: { role: string; function_id?: string; details?: unknown } | undefined): SubagentUsage | undefined {
  if (message?.role !== 'function_result' || message.function_id !== TASK_TOOL) return undefined;
  const sub = (message.details as { subagent?: { usage?: unknown } } | undefined)?.subagent?.usage;
  return sub && typeof sub === 'object' ? (sub as SubagentUsage) : undefined;
}
