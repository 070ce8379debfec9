import '../harness/quiet-temporal';
import { randomUUID } from 'node:crypto';
import type { temporal } from '@temporalio/proto';
import type { AgentEvent } from '../../contracts/agent-events';
import { promptUpdate, sessionStateQuery } from '../../contracts/session-workflow';
import { turnWorkflowId } from '../../contracts/workflow-ids';
import { devServerWorkers, sessionStart, waitFor } from '../harness/dev-server-worker';
import { createRecordingActivities } from '../harness/fake-activities';

/**
 * A turn announces its own start (`turns_announce_start`): the workflow task that takes a prompt only
 * starts the child, and the turn's first model step publishes its first `session.state` right before
 * `turn.started`. The session says where the turn's events begin (`turn_start_seq`) from the last
 * event it published itself, which must be exactly the turn's first event. The turn's reports reach
 * the session from the local activity that publishes their state, and the turn runs 4 workflow tasks
 * for a tool call (the start, each activity's end), as Temporal's floor does.
 */
const dev = devServerWorkers();

type State = Extract<AgentEvent, { type: 'session.state' }>;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The events of the history from the `n`th accepted update (a prompt) to the child's start that followed it. */
function turnStartTask(events: HistoryEvent[], n: number): HistoryEvent[] {
  const accepted = events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
  const from = events.indexOf(accepted[n]!);
  const to = events.findIndex((e, i) => i > from && e.startChildWorkflowExecutionInitiatedEventAttributes);
  return events.slice(from, to + 1);
}

/**
 * A session whose first turn has ended and whose second has started, its first model step held after
 * it announced the turn (the turn's state and `turn.started` published); `before` is where the second
 * turn's events begin in `published`. Runs `body` inside the worker.
 */
async function withSecondTurnHeld(steps: NonNullable<NonNullable<Parameters<typeof createRecordingActivities>[0]>['steps']>, body: (s: { handle: ReturnType<typeof dev.env.client.workflow.getHandle>; fakes: ReturnType<typeof createRecordingActivities>; sessionId: string; before: number }) => Promise<void>) {
  const sessionId = `s-${randomUUID()}`;
  const taskQueue = `tq-${randomUUID()}`;
  const handle = dev.env.client.workflow.getHandle(`session:${sessionId}`);
  const fakes = createRecordingActivities({ steps });
  const worker = await dev.worker(taskQueue, fakes.activities);
  await worker.runUntil(async () => {
    await dev.env.client.workflow.executeUpdateWithStart(promptUpdate, { args: [{ text: 'first' }], startWorkflowOperation: sessionStart(sessionId, taskQueue) });
    await waitFor(() => handle.query(sessionStateQuery), (st) => st.phase === 'idle' && st.last_turn === 1);
    const before = fakes.published.length;
    fakes.hold();
    await handle.executeUpdate(promptUpdate, { args: [{ text: 'second' }] });
    await waitFor(async () => fakes.published.length, (n) => n >= before + 2);
    await body({ handle, fakes, sessionId, before });
  });
}

test('the second turn of a run is announced by the turn (no local activity in the task that starts it, turn_start_seq is its first event) and reports without signals of its own', async () => {
  const steps = [[{ id: 'c1', name: 'read_file', requires_approval: false }], [], [{ id: 'c2', name: 'read_file', requires_approval: false }], []];
  // The second turn's model step waits: what a client joining now is told must already be true.
  await withSecondTurnHeld(steps, async ({ handle, fakes, sessionId, before }) => {
    const view = await waitFor(() => handle.query(sessionStateQuery), (st) => st.active_turn === 't2');
    const first = fakes.published[before]!;
    // The fake publisher's sequences are 1-based positions in `published`.
    expect(view.turn_start_seq).toBe(before + 1);
    expect(first.event.turn_id).toBe('t2');
    expect(first.event.event).toMatchObject({ type: 'session.state', phase: 'thinking', turn_id: 't2', streaming: true, queue_length: 0 } satisfies Partial<State>);
    expect(fakes.published[before + 1]!.event.event).toMatchObject({ type: 'turn.started', turn_id: 't2' });
    fakes.release();
    await waitFor(() => handle.query(sessionStateQuery), (st) => st.phase === 'idle' && st.last_turn === 2);

    const types = fakes.published.slice(before).map((p) => (p.event.event.type === 'session.state' ? `state ${p.event.event.phase}` : p.event.event.type));
    expect(types).toEqual(['state thinking', 'turn.started', 'state tool_execution', 'state thinking', 'turn.finished', 'state idle']);
    // Each state once: the session did not publish the turn's first state too.
    expect(fakes.published.filter((p) => p.event.id === 't2:running')).toHaveLength(1);

    const history = (await handle.fetchHistory()).events ?? [];
    // The first turn of a fresh run: nothing published yet, so the session announces it itself (a local activity).
    expect(turnStartTask(history, 0).some((e) => e.markerRecordedEventAttributes)).toBe(true);
    // The second: the task that takes the prompt completes with the child's start and no local activity.
    const second = turnStartTask(history, 1);
    expect(second.some((e) => e.markerRecordedEventAttributes)).toBe(false);
    // One task: its commands follow its WorkflowTaskCompleted, with no other task in between.
    expect(second.some((e) => e.workflowTaskCompletedEventAttributes)).toBe(false);
    expect(second.some((e) => e.workflowExecutionUpdateCompletedEventAttributes)).toBe(true);
    // The turn runs its local activities in order on its input's word: no patch marker (and no
    // TemporalChangeVersion upsert) in a turn that takes no rare path.
    const turn = (await dev.env.client.workflow.getHandle(turnWorkflowId(sessionId, 2)).fetchHistory()).events ?? [];
    expect(turn.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch')).toEqual([]);
    expect(turn.some((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')).toBe(true);
    // Its reports (tool_execution, thinking) send no signal of the turn's own, so no task for its confirmation.
    expect(turn.filter((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes || e.externalWorkflowExecutionSignaledEventAttributes)).toEqual([]);
    expect(turn.filter((e) => e.workflowTaskCompletedEventAttributes)).toHaveLength(4);
    // And the session hears none of them: the turn keeps its view in its memo (`view_in_memo`).
    const reports = history.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'turnProgress');
    expect(reports).toEqual([]);
    expect(turn.filter((e) => e.workflowPropertiesModifiedEventAttributes)).toHaveLength(2);
    await handle.terminate('test done');
  });
}, 60_000);

/** What JetStream stores of what was published: the first event of each id (a later one is a duplicate). */
function storedOnce(published: Array<{ event: { id: string; turn_id?: string; event: AgentEvent } }>) {
  const seen = new Set<string>();
  return published.filter((p) => !seen.has(p.event.id) && seen.add(p.event.id)).map((p) => p.event);
}

test('a prompt queued while a turn\'s first step streams is told at once: the turn publishes the new part under its first state\'s id, then under its own', async () => {
  // The second turn announces its start from its first step, which then streams (held).
  await withSecondTurnHeld([[], [], []], async ({ handle, fakes, before }) => {
    const queued = await handle.executeUpdate(promptUpdate, { args: [{ text: 'third', behavior: 'queue' }] });
    expect(queued).toMatchObject({ queued: true, queue_position: 1 });

    // Told while the step still streams, not at the turn's end.
    const stored = await waitFor(
      async () => storedOnce(fakes.published.slice(before)),
      (evs) => evs.some((e) => e.event.type === 'session.state' && e.event.turn_id === 't2' && e.event.queue_length === 1),
      10_000,
    );
    expect(stored.some((e) => e.event.type === 'turn.finished')).toBe(false);
    const states = stored.filter((e): e is typeof e & { event: State } => e.event.type === 'session.state');
    expect(states.map((e) => [e.event.turn_id, e.event.queue_length, e.event.phase, e.event.streaming])).toEqual([
      ['t2', 0, 'thinking', true],
      ['t2', 1, 'thinking', true],
    ]);
    // The new part went under the first state's id too (a step publishing that state later is then the
    // duplicate), here after the step had: the step's state (0 queued) stays, the new part follows it.
    const claims = fakes.published.slice(before).filter((p) => p.event.id === 't2:running');
    expect(claims.map((p) => (p.event.event as State).queue_length)).toEqual([0, 1]);

    fakes.release();
    await waitFor(() => handle.query(sessionStateQuery), (st) => st.phase === 'idle' && st.last_turn === 3);
    await handle.terminate('test done');
  });
}, 60_000);

