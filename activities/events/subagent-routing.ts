import { parseSubagentSessionId } from '../../contracts/subagents';
import type { AgentEventPublisher } from './publisher';

/**
 * A sub-agent's events go on its parent session's stream, marked (docs/subagents.md): a client of the
 * parent watches the sub-agent work without following a second session. Recognised by the
 * sub-session's id alone (contracts/subagents.ts), so every activity of the child turn — model step,
 * tools, results, the workflow's own events — is routed without knowing it runs for a sub-agent.
 * Ids are prefixed with the task's call id: the child's `t1:s0:done` must not de-duplicate against
 * the parent's own. The envelope's `turn_id` is the parent's turn (clients following that turn see
 * them); the event keeps the child's own turn id, steps and call ids.
 */
export function routeSubagentEvents(inner: AgentEventPublisher): AgentEventPublisher {
  return {
    publish(sessionId, events) {
      const parent = parseSubagentSessionId(sessionId);
      if (!parent) return inner.publish(sessionId, events);
      return inner.publish(
        parent.parent_session_id,
        events.map((e) => ({ ...e, id: `task:${parent.parent_turn_id}:${parent.tool_call_id}:${e.id}`, turn_id: parent.parent_turn_id, subagent: { tool_call_id: parent.tool_call_id, session_id: sessionId } })),
      );
    },
  };
}
