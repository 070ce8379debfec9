import '../harness/quiet-temporal';
import { randomUUID } from 'node:crypto';
import type { AgentEvent } from '../../contracts/agent-events';
import { interruptUpdate, promptUpdate, sessionStateQuery, setSettingsUpdate } from '../../contracts/session-workflow';
import { devServerWorkers, sessionStart, waitFor } from '../harness/dev-server-worker';
import { createRecordingActivities } from '../harness/fake-activities';

/**
 * The budget pause in the workflows (docs/budgets.md), with activities that report a fixed spending:
 * a turn whose caps are reached waits before its model step in `waiting_budget`, goes on when a
 * settings change raises the cap, and ends `aborted` on psi's deferred interrupt — without the model
 * being called. (The real stack's version, with restarts: test/e2e/budgets.test.ts.)
 */
const dev = devServerWorkers();

function session() {
  const sessionId = `s-${randomUUID()}`;
  const taskQueue = `tq-${randomUUID()}`;
  return { sessionId, taskQueue, start: sessionStart(sessionId, taskQueue), handle: dev.env.client.workflow.getHandle(`session:${sessionId}`) };
}

type State = Extract<AgentEvent, { type: 'session.state' }>;
const isState = (e: AgentEvent): e is State => e.type === 'session.state';
const story = (events: AgentEvent[]) =>
  events.flatMap((e) => (isState(e) ? [e.phase] : e.type === 'budget.exceeded' ? [`exceeded ${e.spent_tokens}/${e.limit.max_tokens}`] : e.type === 'turn.finished' ? [`finished ${e.outcome}`] : e.type === 'notice' ? ['notice'] : []));

/**
 * The events as the stream keeps them: a local activity that ran again (its workflow task was retried
 * when a signal came in as the turn ended) publishes the same ids, which JetStream de-duplicates.
 */
function published(all: Array<{ event: { id: string; event: AgentEvent } }>): AgentEvent[] {
  const seen = new Set<string>();
  return all.flatMap(({ event }) => (seen.has(event.id) ? [] : (seen.add(event.id), [event.event])));
}

test("a deferred interrupt ends a turn waiting at its prompt's cap; the model is never called", async () => {
  const s = session();
  const fakes = createRecordingActivities({ spent: { cost_usd: 0, tokens: 150 } });
  const worker = await dev.worker(s.taskQueue, fakes.activities);
  const events = () => published(fakes.published);
  await worker.runUntil(async () => {
    await dev.env.client.workflow.executeUpdateWithStart(promptUpdate, { args: [{ text: 'go', budget: { max_tokens: 100 } }], startWorkflowOperation: s.start });
    await waitFor(() => s.handle.query(sessionStateQuery), (st) => st.phase === 'waiting_budget');
    expect(events().find((e) => e.type === 'budget.exceeded')).toEqual({ type: 'budget.exceeded', turn_id: 't1', step: 0, spent_usd: 0, spent_tokens: 150, limit: { max_cost_usd: null, max_tokens: 100 } });
    await s.handle.executeUpdate(interruptUpdate, { args: [{}] });
    await waitFor(() => s.handle.query(sessionStateQuery), (st) => st.phase === 'idle' && st.active_turn === null);
    expect(fakes.modelSteps).toEqual([]);
    const said = story(events());
    // The pause is announced after its state; the interrupt's own state (interrupt pending) may come before or after the notice.
    expect(said.indexOf('waiting_budget')).toBe(said.indexOf('exceeded 150/100') - 1);
    // A notice may come twice under two ids: the turn's last workflow task can be retried when the
    // interrupt's state signal comes in as it ends, and that run draws its ids in another order.
    const outline = said.filter((x, i) => x !== 'waiting_budget' && x !== 'thinking' && !(x === 'notice' && said[i - 1] === 'notice'));
    expect(outline.filter((x, i) => !(x === 'notice' && outline[i - 1] === 'notice'))).toEqual(['exceeded 150/100', 'notice', 'finished aborted', 'idle']);
    const notice = events().find((e) => e.type === 'notice');
    expect(notice).toMatchObject({ message: expect.stringContaining('waited for a higher budget') });
    await s.handle.terminate('test done');
  });
}, 60_000);

test("raising the session's cap continues a waiting turn; one still too low announces again", async () => {
  const s = session();
  const fakes = createRecordingActivities({ spent: { cost_usd: 0.5, tokens: 150 } });
  const worker = await dev.worker(s.taskQueue, fakes.activities);
  const events = () => published(fakes.published);
  await worker.runUntil(async () => {
    await dev.env.client.workflow.executeUpdateWithStart(setSettingsUpdate, { args: [{ budget: { max_tokens: 100 } }], startWorkflowOperation: s.start });
    await s.handle.executeUpdate(promptUpdate, { args: [{ text: 'go' }] });
    await waitFor(() => s.handle.query(sessionStateQuery), (st) => st.phase === 'waiting_budget');
    // Still at a cap (the dollar cap added is reached too): announced again, still waiting.
    await s.handle.executeUpdate(setSettingsUpdate, { args: [{ budget: { max_tokens: 120, max_cost_usd: 0.5 } }] });
    await waitFor(async () => events().filter((e) => e.type === 'budget.exceeded').length, (n) => n === 2);
    expect(fakes.modelSteps).toEqual([]);
    // Both caps raised: the model step runs and the turn ends as usual.
    const settings = await s.handle.executeUpdate(setSettingsUpdate, { args: [{ budget: { max_tokens: 1000, max_cost_usd: null } }] });
    expect(settings.budget).toEqual({ max_tokens: 1000 });
    await waitFor(() => s.handle.query(sessionStateQuery), (st) => st.phase === 'idle' && st.last_turn === 1 && st.active_turn === null);
    expect(fakes.modelSteps).toEqual([{ turn_id: 't1', step: 0, attempt: 1 }]);
    expect(story(events()).filter((x) => x.startsWith('exceeded') || x.startsWith('finished'))).toEqual(['exceeded 150/100', 'exceeded 150/120', 'finished done']);
    await s.handle.terminate('test done');
  });
}, 60_000);
