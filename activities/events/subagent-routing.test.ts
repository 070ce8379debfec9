import type { AgentEventPublisher, OutgoingEvent } from './publisher';
import { routeSubagentEvents } from './subagent-routing';

function recorder(): AgentEventPublisher & { got: Array<{ sessionId: string; events: OutgoingEvent[] }> } {
  const got: Array<{ sessionId: string; events: OutgoingEvent[] }> = [];
  return { got, publish: async (sessionId, events) => void got.push({ sessionId, events }) };
}

test("a sub-session's events go on the parent's stream, marked, under the parent's turn, with ids of their own", async () => {
  const inner = recorder();
  const routed = routeSubagentEvents(inner);
  const delta: OutgoingEvent = { id: 't1:s0:a1:c1', turn_id: 't1', attempt: 1, event: { type: 'assistant.delta', turn_id: 't1', step: 0, text: 'hi' } };
  await routed.publish('s9~task~t3~call_a', [delta]);
  expect(inner.got).toEqual([
    {
      sessionId: 's9',
      events: [{ ...delta, id: 'task:t3:call_a:t1:s0:a1:c1', turn_id: 't3', subagent: { tool_call_id: 'call_a', session_id: 's9~task~t3~call_a' } }],
    },
  ]);
  // The same child event id under two calls (or the parent's own) never de-duplicates against another.
  await routed.publish('s9~task~t3~call_b', [delta]);
  await routed.publish('s9', [delta]);
  expect(inner.got.map((g) => g.events[0]!.id)).toEqual(['task:t3:call_a:t1:s0:a1:c1', 'task:t3:call_b:t1:s0:a1:c1', 't1:s0:a1:c1']);
  expect(inner.got[2]).toEqual({ sessionId: 's9', events: [delta] });
});
