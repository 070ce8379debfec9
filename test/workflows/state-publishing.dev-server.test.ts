import '../harness/quiet-temporal';
import { randomUUID } from 'node:crypto';
import type { AgentEvent } from '../../contracts/agent-events';
import { approvalUpdate, interruptUpdate, promptUpdate, sessionStateQuery, setSettingsUpdate } from '../../contracts/session-workflow';
import { turnWorkflowId } from '../../contracts/workflow-ids';
import { describeJob, listRunningJobs } from '../../services/gateway/temporal/jobs';
import { describeSession, listSessions } from '../../services/gateway/temporal/session-views';
import { devServerWorkers, sessionStart, waitFor } from '../harness/dev-server-worker';
import { createRecordingActivities } from '../harness/fake-activities';

/**
 * Who publishes `session.state` while a turn runs (contracts/session-state-event.ts): the turn itself,
 * with the session's part handed to it, so a report costs the turn no round trip to its session; the
 * session still holds calls waiting for approval before anyone hears of them. What the stream shows
 * must stay in order whoever publishes it.
 */
const dev = devServerWorkers();

function session() {
  const sessionId = `s-${randomUUID()}`;
  const taskQueue = `tq-${randomUUID()}`;
  return { sessionId, taskQueue, start: sessionStart(sessionId, taskQueue), handle: dev.env.client.workflow.getHandle(`session:${sessionId}`) };
}

type State = Extract<AgentEvent, { type: 'session.state' }>;
const isState = (e: AgentEvent): e is State => e.type === 'session.state';

/** The stream as a reader sees it: each state as `phase[ name][ interrupt]`, and the turn's end. */
function story(events: AgentEvent[]): string[] {
  return events.flatMap((e) => {
    if (isState(e)) return [[e.phase, e.session_name, e.interrupt_pending ? 'interrupt' : undefined].filter(Boolean).join(' ')];
    return e.type === 'turn.finished' ? [`finished ${e.outcome}`] : [];
  });
}

async function signalNames(workflowId: string): Promise<string[]> {
  const history = await dev.env.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) => (e.workflowExecutionSignaledEventAttributes ? [e.workflowExecutionSignaledEventAttributes.signalName ?? ''] : []));
}

test('a settings change and an interrupt during a turn reach the stream in order, published by the turn; only the approval waits for the session', async () => {
  const s = session();
  const fakes = createRecordingActivities({ steps: [[{ id: 'c1', name: 'write_file', requires_approval: true }]] });
  const worker = await dev.worker(s.taskQueue, fakes.activities);
  const events = () => fakes.published.map((p) => p.event.event);
  const lastState = () => events().filter(isState).at(-1);
  await worker.runUntil(async () => {
    await dev.env.client.workflow.executeUpdateWithStart(promptUpdate, { args: [{ text: 'write it' }], startWorkflowOperation: s.start });
    // Told the call waits, the session already lists it (it published that state itself).
    await waitFor(async () => lastState(), (st) => st?.phase === 'waiting_approval');
    expect((await s.handle.query(sessionStateQuery)).pending_approvals).toEqual([{ tool_call_id: 'c1', tool: 'write_file' }]);

    await s.handle.executeUpdate(setSettingsUpdate, { args: [{ name: 'renamed' }] });
    await waitFor(async () => lastState(), (st) => st?.session_name === 'renamed');
    await s.handle.executeUpdate(interruptUpdate, { args: [{}] });
    await waitFor(async () => lastState(), (st) => st?.interrupt_pending === true);
    await s.handle.executeUpdate(approvalUpdate, { args: [{ tool_call_id: 'c1', decision: 'approve' }] });
    await waitFor(() => s.handle.query(sessionStateQuery), (st) => st.phase === 'idle' && st.last_turn === 1);

    expect(story(events())).toEqual([
      'thinking',
      'waiting_approval',
      'waiting_approval renamed',
      'waiting_approval renamed interrupt',
      'tool_execution renamed interrupt',
      'finished done',
      'idle renamed',
    ]);
    // The states the turn published carry its id, like every event of the turn.
    expect(fakes.published.filter((p) => isState(p.event.event) && p.event.event.phase !== 'idle').every((p) => p.event.turn_id === 't1')).toBe(true);
    // One acknowledgement (the approval); the tool_execution report and the session's changes cost none.
    const turnSignals = await signalNames(turnWorkflowId(s.sessionId, 1));
    expect(turnSignals.filter((n) => n === 'turnProgressPublished')).toHaveLength(1);
    expect(turnSignals.filter((n) => n === 'turnSessionPart')).toHaveLength(2);
    await s.handle.terminate('test done');
  });
}, 60_000);

test('a turn with a tool call and no approval waits for no acknowledgement, and its states lead its steps', async () => {
  const s = session();
  const fakes = createRecordingActivities({ steps: [[{ id: 'c1', name: 'read_file', requires_approval: false }]] });
  const worker = await dev.worker(s.taskQueue, fakes.activities);
  await worker.runUntil(async () => {
    await dev.env.client.workflow.executeUpdateWithStart(promptUpdate, { args: [{ text: 'read it' }], startWorkflowOperation: s.start });
    await waitFor(() => s.handle.query(sessionStateQuery), (st) => st.phase === 'idle' && st.last_turn === 1);
    expect(story(fakes.published.map((p) => p.event.event))).toEqual(['thinking', 'tool_execution', 'thinking', 'finished done', 'idle']);
    expect(await signalNames(turnWorkflowId(s.sessionId, 1))).not.toContain('turnProgressPublished');
    // The turn keeps its view itself (`turns_keep_view`): its routine reports cost the session nothing.
    expect((await signalNames(`session:${s.sessionId}`)).filter((n) => n === 'turnProgress')).toEqual([]);
    await s.handle.terminate('test done');
  });
}, 60_000);

test('a turn keeps its own view: a read during its tool call says tool_execution (one describe, and the list), though the session heard none of it', async () => {
  const s = session();
  const fakes = createRecordingActivities({ steps: [[{ id: 'c1', name: 'read_file', requires_approval: false }]] });
  let releaseTool!: () => void;
  const toolGate = new Promise<void>((resolve) => (releaseTool = resolve));
  const runTool = fakes.activities.runTool;
  fakes.activities.runTool = async (input) => {
    await toolGate;
    return runTool(input);
  };
  const worker = await dev.worker(s.taskQueue, fakes.activities);
  const client = dev.env.client;
  await worker.runUntil(async () => {
    await client.workflow.executeUpdateWithStart(promptUpdate, { args: [{ text: 'read it' }], startWorkflowOperation: s.start });
    const during = await waitFor(() => describeSession(client, s.sessionId), (r) => r.status === 'active' && r.view.phase === 'tool_execution');
    expect(during).toMatchObject({ status: 'active', view: { active_turn: 't1', phase: 'tool_execution', step: 0, streaming: false, details: 'read_file', turn_keeps_view: true } });
    // The session's own view still says what it last heard: the turn's start.
    expect((await s.handle.query(sessionStateQuery)).phase).toBe('thinking');
    // The list reads visibility, which trails the workflows by moments.
    const listed = await waitFor(() => listSessions(client, [s.sessionId]), (m) => { const r = m.get(s.sessionId); return r?.status === 'active' && r.view.phase === 'tool_execution'; });
    expect(listed.get(s.sessionId)).toMatchObject({ status: 'active', view: { phase: 'tool_execution', details: 'read_file' } });
    // So do the running-turn lists (/api/turns, the strand_turns_running gauge), from the turn's memo.
    const turnJob = async () => (await listRunningJobs(client)).find((j) => j.job_id === turnWorkflowId(s.sessionId, 1));
    expect(await waitFor(turnJob, (j) => j?.phase === 'tool_execution')).toMatchObject({ status: 'running', phase: 'tool_execution' });
    expect(await describeJob(client, turnWorkflowId(s.sessionId, 1))).toMatchObject({ status: 'running', phase: 'tool_execution' });
    releaseTool();
    await waitFor(() => s.handle.query(sessionStateQuery), (st) => st.phase === 'idle' && st.last_turn === 1);
    expect(await describeSession(client, s.sessionId)).toMatchObject({ status: 'active', view: { phase: 'idle', active_turn: null } });
    expect((await signalNames(`session:${s.sessionId}`)).filter((n) => n === 'turnProgress')).toEqual([]);
    await s.handle.terminate('test done');
  });
}, 60_000);
