import type { AgentEvent, AgentEventEnvelope } from '../../../contracts/agent-events';
import { httpEventDataSchema } from '../../../contracts/http-events';
import { wsEventSchema } from '../../../contracts/ws-rpc';
import { schemaErrors } from '../../../test/harness/acp-schema';
import { toAcpUpdates } from './acp-updates';
import { TurnStream } from '../events/turn-stream';
import { sessionUpdatedPayload, toEdnEvents } from './edn-events';
import { toHttpEvent } from './http-events';
import { toWsEvents } from './ws-events';

/** `budget.exceeded` on every transport (docs/budgets.md): each says the spending, the cap and how to go on. */
const exceeded: AgentEvent = { type: 'budget.exceeded', turn_id: 't1', step: 1, spent_usd: 0.42, spent_tokens: 1500, limit: { max_cost_usd: null, max_tokens: 1000 } };
let seq = 0;
const env = (event: AgentEvent): AgentEventEnvelope => ({ v: 1, session_id: 'sess_1', turn_id: 't1', seq: ++seq, ts: 1_700_000_000_000, event });
const read = (stream: TurnStream, e: AgentEventEnvelope) => {
  const got = stream.next(e);
  if (!got) throw new Error('the turn stream dropped the event');
  return got;
};

test('SSE: a budget.exceeded frame with the spending and the caps, valid against the documented union', () => {
  const out = toHttpEvent(env(exceeded));
  expect(out).toEqual({ event: 'budget.exceeded', data: { type: 'budget.exceeded', turn_id: 't1', spent_usd: 0.42, spent_tokens: 1500, limit: { max_cost_usd: null, max_tokens: 1000 } } });
  expect(httpEventDataSchema.safeParse(out!.data).success).toBe(true);
});

test('WebSocket: a warn notice naming the caps, the spending and how to raise the budget', () => {
  const out = toWsEvents(read(new TurnStream({ only: 't1' }), env(exceeded)));
  expect(out).toHaveLength(1);
  expect(wsEventSchema.safeParse(out[0]).success).toBe(true);
  expect(out[0]).toMatchObject({ type: 'notice', level: 'warn', source: 'strand' });
  const message = (out[0] as { message: string }).message;
  expect(message).toContain('spent $0.42 and 1500 tokens of 1000 tokens');
  expect(message).toContain('PATCH /api/sessions/sess_1/settings {"budget": {"max_tokens": …}}');
});

test('EDN: a ui/notification warning the Emacs client shows; the waiting phase is a running turn to psi', () => {
  const out = toEdnEvents('sess_1', read(new TurnStream(), env(exceeded))).events;
  expect(out).toHaveLength(1);
  expect(out[0]).toMatchObject({ topic: 'ui/notification', data: { 'session-id': 'sess_1', level: 'warning' } });
  expect(out[0]!.data.message).toMatch(/^budget reached: spent \$0\.42 and 1500 tokens of 1000 tokens; the turn waits\./);
  const state = sessionUpdatedPayload('sess_1', { phase: 'waiting_budget', turnActive: true, queueLength: 0, retryAttempt: 0, model: 'scripted/echo', thinkingLevel: 'off' });
  expect(state).toMatchObject({ phase: 'streaming', 'agent-phase': 'waiting_budget', 'is-streaming': true });
});

test('ACP: a notice for clients that show them, else a line in the conversation; both valid ACP', () => {
  const facts = { project: '/p', notices: true };
  const asNotice = toAcpUpdates(read(new TurnStream(), env(exceeded)), facts);
  expect(asNotice).toEqual([{ sessionUpdate: 'notice', severity: 'warning', title: expect.stringContaining('of 1000 tokens; the turn waits') }]);
  const asText = toAcpUpdates(read(new TurnStream(), env(exceeded)), { ...facts, notices: false });
  expect(asText).toEqual([{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: expect.stringContaining('[strand] budget reached') } }]);
  for (const update of [...asNotice, ...asText]) expect(schemaErrors('SessionNotification', { sessionId: 's', update })).toBe('');
});
