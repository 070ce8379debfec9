import '../harness/quiet-temporal';
import { temporal } from '@temporalio/proto';
import { randomUUID } from 'node:crypto';
import { SESSION_VIEW_MEMO_KEY, type SessionLiveView } from '../../contracts/session-live-view';
import { promptUpdate, sessionStateQuery } from '../../contracts/session-workflow';
import { devServerWorkers, sessionStart, waitFor } from '../harness/dev-server-worker';
import { createRecordingActivities } from '../harness/fake-activities';

/**
 * The session's view in its memo (workflows/session/session-view-memo.ts) on the real dev server: the
 * workflow task that starts a turn upserts the view once, with the turn's start in it, not once per
 * step of the start (the prompt queued, the phase, the turn's first sequence number); a prompt queued
 * behind a running turn is still in the view as soon as it is accepted.
 */
const dev = devServerWorkers();
const T = temporal.api.enums.v1.EventType;

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The events of the workflow task that completed just before `at` (its commands), in order. */
function commandsOfTaskBefore(events: HistoryEvent[], at: number): HistoryEvent[] {
  let completed = at - 1;
  while (completed >= 0 && events[completed]!.eventType !== T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) completed--;
  const out: HistoryEvent[] = [];
  for (let i = completed + 1; i < events.length && events[i]!.eventType !== T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED; i++) out.push(events[i]!);
  return out;
}

async function memoView(handle: { describe(): Promise<{ memo?: Record<string, unknown> }> }): Promise<SessionLiveView | undefined> {
  return (await handle.describe()).memo?.[SESSION_VIEW_MEMO_KEY] as SessionLiveView | undefined;
}

test("the task that starts a turn upserts the session's view once, with the turn's start in it", async () => {
  const taskQueue = `tq-${randomUUID()}`;
  const workflowId = `session:${randomUUID()}`;
  const fakes = createRecordingActivities();
  const worker = await dev.worker(taskQueue, fakes.activities);
  // Released whatever happens: a held model step would keep the worker from shutting down.
  const released = <T>(run: () => Promise<T>) => run().finally(() => fakes.release());
  await worker.runUntil(released(async () => {
    // A first turn, to its end: the next prompt meets an idle, loaded session (as every prompt but a run's first).
    await dev.env.client.workflow.executeUpdateWithStart(promptUpdate, { args: [{ text: 'first' }], updateId: 'u1', startWorkflowOperation: sessionStart('s', taskQueue, workflowId) });
    const handle = dev.env.client.workflow.getHandle(workflowId);
    await waitFor(() => memoView(handle), (v) => v?.phase === 'idle' && v.last_turn === 1);

    fakes.hold();
    await handle.executeUpdate(promptUpdate, { args: [{ text: 'second' }], updateId: 'u2' });
    await waitFor(() => handle.query(sessionStateQuery), (s) => s.active_turn === 't2' && s.turn_start_seq !== null);
    const events = (await handle.fetchHistory()).events ?? [];
    const childStart = events.map((e) => e.eventType).lastIndexOf(T.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED);
    // The child's start is in the task that took the prompt, with one upsert of the view beside it.
    const task = commandsOfTaskBefore(events, childStart + 1);
    expect(task.some((e) => e.eventType === T.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED)).toBe(true);
    expect(task.filter((e) => e.eventType === T.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED)).toHaveLength(1);
    expect(await memoView(handle)).toMatchObject({ phase: 'thinking', active_turn: 't2', turn_start_seq: expect.any(Number) as number, queue: [] });

    // A prompt queued behind the running turn is in the view at once (no turn is being started).
    await handle.executeUpdate(promptUpdate, { args: [{ text: 'later', behavior: 'queue' }], updateId: 'u3' });
    expect(await memoView(handle)).toMatchObject({ active_turn: 't2', queue: [{ turn_number: 3 }] });

    fakes.release();
    const idle = await waitFor(() => memoView(handle), (v) => v?.phase === 'idle' && v.last_turn === 3);
    expect(idle).toMatchObject({ active_turn: null, queue: [], turn_start_seq: null });
    await handle.terminate('test done');
  }));
}, 120_000);
