import '../harness/quiet-temporal';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { randomUUID } from 'node:crypto';
import {
  NOTHING_RUNNING,
  abortRetryUpdate,
  abortUpdate,
  abortUserCommandUpdate,
  clearQueueUpdate,
  compactUpdate,
  interruptUpdate,
  promptUpdate,
  sessionStateQuery,
  steerUpdate,
  type SessionSnapshot,
} from '../../contracts/session-workflow';
import { devServerWorkers, sessionStart, waitFor } from '../harness/dev-server-worker';
import { createRecordingActivities } from '../harness/fake-activities';

/**
 * The session workflow's races and bounds on the local dev server (issue 22, section 3): a queued
 * prompt never starts a turn while a manual compaction runs; a session whose queue never drains still
 * continues as new (the server suggests it after 40 events) and keeps its queue in order; commands about
 * something that is not running are refused before they reach history; and the state that announces a
 * model step reaches the stream before that step's answer, even when the session publishes slowly.
 */
const dev = devServerWorkers({ suggestContinueAsNewAfter: 40 });

/** A fresh session (its own id, so its turns' workflow ids are its own) on its own task queue. */
function session() {
  const sessionId = `s-${randomUUID()}`;
  const taskQueue = `tq-${randomUUID()}`;
  return { sessionId, taskQueue, start: sessionStart(sessionId, taskQueue), handle: dev.env.client.workflow.getHandle(`session:${sessionId}`) };
}

const failureType = (err: unknown) => (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure ? err.cause.type : `not a rejected update: ${String(err)}`);

async function acceptedUpdateIds(handle: WorkflowHandle): Promise<string[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).flatMap((e) => (e.workflowExecutionUpdateAcceptedEventAttributes ? [e.workflowExecutionUpdateAcceptedEventAttributes.protocolInstanceId ?? ''] : []));
}

test('a queued prompt sent during a manual compaction starts its turn only after the compaction ended', async () => {
  const s = session();
  const fakes = createRecordingActivities();
  let releaseCompaction: () => void = () => undefined;
  const compactionHeld = new Promise<void>((resolve) => (releaseCompaction = resolve));
  const compactSession = fakes.activities.compactSession;
  fakes.activities.compactSession = async (input) => {
    await compactionHeld;
    return compactSession(input);
  };
  const worker = await dev.worker(s.taskQueue, fakes.activities);
  await worker.runUntil(async () => {
    await dev.env.client.workflow.executeUpdateWithStart(promptUpdate, { args: [{ text: 'first' }], startWorkflowOperation: s.start });
    await waitFor(() => s.handle.query(sessionStateQuery), (st) => st.phase === 'idle');
    const compacted = s.handle.executeUpdate(compactUpdate, { args: [{}] });
    await waitFor(() => s.handle.query(sessionStateQuery), (st) => st.phase === 'compacting');
    expect(await s.handle.executeUpdate(promptUpdate, { args: [{ text: 'while compacting', behavior: 'queue' }] })).toMatchObject({ turn_id: 't2', queued: true, queue_position: 1 });
    // The update's answer comes after the workflow task that took it: a turn started then would show here.
    const during = await s.handle.query(sessionStateQuery);
    expect({ phase: during.phase, active_turn: during.active_turn, queue: during.queue.map((q) => q.text) }).toEqual({ phase: 'compacting', active_turn: null, queue: ['while compacting'] });
    expect(fakes.userMessages.map((m) => m.entry_id)).toEqual(['t1:user']);
    releaseCompaction();
    expect(await compacted).toMatchObject({ compacted: true });
    await waitFor(() => s.handle.query(sessionStateQuery), (st: SessionSnapshot) => st.phase === 'idle' && st.last_turn === 2);
    expect(fakes.userMessages.map((m) => m.entry_id)).toEqual(['t1:user', 't2:user']);
    // On the stream: compacting, then the queued turn (never `compacting` again while it runs).
    const phases = fakes.published.map((p) => p.event.event).flatMap((e) => (e.type === 'session.state' ? [e.phase] : e.type === 'turn.finished' ? ['finished'] : []));
    // The prompt queued meanwhile is told at once (the compaction's state again, with the queue).
    expect(phases).toEqual(['thinking', 'finished', 'idle', 'compacting', 'compacting', 'thinking', 'thinking', 'finished', 'idle']);
    const queued = fakes.published.map((p) => p.event.event).filter((e): e is Extract<typeof e, { type: 'session.state' }> => e.type === 'session.state' && e.phase === 'compacting');
    expect(queued.map((e) => e.queue_length)).toEqual([0, 1]);
    await s.handle.terminate('test done');
  });
}, 60_000);

test('a session whose queue never drains continues as new between turns; history stays bounded and the queue keeps its order', async () => {
  const s = session();
  const fakes = createRecordingActivities();
  fakes.hold();
  const worker = await dev.worker(s.taskQueue, fakes.activities);
  await worker.runUntil(async () => {
    await dev.env.client.workflow.executeUpdateWithStart(promptUpdate, { args: [{ text: 'p1' }], startWorkflowOperation: s.start });
    const firstRun = (await s.handle.describe()).runId;
    for (let i = 2; i <= 12; i++) await s.handle.executeUpdate(promptUpdate, { args: [{ text: `p${i}`, behavior: 'queue' }] });
    // Every turn ends with prompts still queued until the last one.
    fakes.release();
    await waitFor(() => s.handle.query(sessionStateQuery), (st) => st.phase === 'idle' && st.last_turn === 12, 60_000);
    expect(fakes.userMessages.map((m) => m.text)).toEqual(Array.from({ length: 12 }, (_, i) => `p${i + 1}`));
    const runs = await runChain(s.handle, firstRun);
    expect(runs.length).toBeGreaterThan(2);
    // Each run continued as new soon after the server's suggestion (40 events): one turn's worth beyond
    // it at most, and in the first run what the 11 prompts queued behind its turn add: each is told to
    // the running turn (a signal, its confirmation and the workflow task that takes it, 5 events).
    for (const [i, run] of runs.entries()) expect(run.events).toBeLessThan(120 + (i === 0 ? 11 * 5 : 0));
    await s.handle.terminate('test done');
  });
}, 90_000);

/** Every run of the session from `firstRunId` to the current one, with its history length. */
async function runChain(handle: WorkflowHandle, firstRunId: string): Promise<Array<{ runId: string; events: number }>> {
  const runs: Array<{ runId: string; events: number }> = [];
  let runId: string | undefined = (await handle.describe()).runId;
  while (runId) {
    const history: Awaited<ReturnType<WorkflowHandle['fetchHistory']>> = await dev.env.client.workflow.getHandle(handle.workflowId, runId).fetchHistory();
    const events = history.events ?? [];
    runs.unshift({ runId, events: events.length });
    if (runId === firstRunId) break;
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
  }
  expect(runs[0]?.runId).toBe(firstRunId);
  return runs;
}

test('abort, interrupt, steer, abort_retry, clear_queue and abort_command with nothing running are refused and never reach history', async () => {
  const s = session();
  const fakes = createRecordingActivities();
  const worker = await dev.worker(s.taskQueue, fakes.activities);
  await worker.runUntil(async () => {
    await dev.env.client.workflow.executeUpdateWithStart(promptUpdate, { args: [{ text: 'hi' }], updateId: 'prompt-1', startWorkflowOperation: s.start });
    await waitFor(() => s.handle.query(sessionStateQuery), (st) => st.phase === 'idle');
    const refused = [
      await s.handle.executeUpdate(abortUpdate, { args: [{}], updateId: 'abort' }).catch(failureType),
      await s.handle.executeUpdate(interruptUpdate, { args: [{}], updateId: 'interrupt' }).catch(failureType),
      await s.handle.executeUpdate(steerUpdate, { args: [{ text: 'late' }], updateId: 'steer' }).catch(failureType),
      await s.handle.executeUpdate(abortRetryUpdate, { args: [], updateId: 'abortRetry' }).catch(failureType),
      await s.handle.executeUpdate(clearQueueUpdate, { args: [], updateId: 'clearQueue' }).catch(failureType),
      await s.handle.executeUpdate(abortUserCommandUpdate, { args: [], updateId: 'abortUserCommand' }).catch(failureType),
    ];
    expect(refused).toEqual(Array(6).fill(NOTHING_RUNNING));
    // A steer without text is a bad command, not a no-op.
    expect(await s.handle.executeUpdate(steerUpdate, { args: [{ text: '' }] }).catch(failureType)).toBe('INVALID_COMMAND');
    expect(await acceptedUpdateIds(s.handle)).toEqual(['prompt-1']);
    await s.handle.terminate('test done');
  });
}, 60_000);

test('the state that announces a step reaches the stream before the step answers, even when the session publishes slowly', async () => {
  const s = session();
  const fakes = createRecordingActivities({ steps: [[{ id: 'c1', name: 'read_file', requires_approval: false }]] });
  const { streamModelStep, publishEvents } = fakes.activities;
  // As the real step does: its final message goes to the stream from the activity, not through the session.
  fakes.activities.streamModelStep = async (input) => {
    const result = await streamModelStep(input);
    await publishEvents(input.session_id, [{ id: `${input.turn_id}:s${input.step}:message`, turn_id: input.turn_id, event: { type: 'assistant.message', turn_id: input.turn_id, step: input.step, entry_id: result.entry_id, text: `answer ${input.step}`, content: [], stop_reason: result.stop_reason } as any }]);
    return result;
  };
  // The session's own publishes are slow (a busy NATS, a loaded worker): the turn must not overtake them.
  fakes.activities.publishEvents = async (sessionId, events) => {
    if (events.some((e) => e.event.type === 'session.state')) await new Promise((r) => setTimeout(r, 300));
    return publishEvents(sessionId, events);
  };
  const worker = await dev.worker(s.taskQueue, fakes.activities);
  await worker.runUntil(async () => {
    await dev.env.client.workflow.executeUpdateWithStart(promptUpdate, { args: [{ text: 'read it' }], startWorkflowOperation: s.start });
    await waitFor(() => s.handle.query(sessionStateQuery), (st) => st.phase === 'idle' && st.last_turn === 1);
    // The session is idle before it announces so (whoever hears idle can prompt at once): the last
    // publish, slowed down here, may still be on its way.
    const idleAnnounced = () => fakes.published.some((p) => p.event.event.type === 'session.state' && p.event.event.phase === 'idle');
    await waitFor(async () => idleAnnounced(), (announced) => announced);
    const stream = fakes.published.map((p) => p.event.event).flatMap((e) => {
      if (e.type === 'session.state') return [`state ${e.phase}`];
      if (e.type === 'assistant.message') return [`message ${e.step}`];
      return e.type === 'turn.finished' ? ['turn.finished'] : [];
    });
    expect(stream).toEqual(['state thinking', 'message 0', 'state tool_execution', 'state thinking', 'message 1', 'turn.finished', 'state idle']);
    await s.handle.terminate('test done');
  });
}, 60_000);
