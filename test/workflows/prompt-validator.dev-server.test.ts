import '../harness/quiet-temporal';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { randomUUID } from 'node:crypto';
import { abortRetryUpdate, approvalUpdate, compactUpdate, promptUpdate, sessionStateQuery, setSettingsUpdate, steerUpdate, type SessionSnapshot } from '../../contracts/session-workflow';
import { devServerWorkers, sessionStart, waitFor } from '../harness/dev-server-worker';
import { createRecordingActivities } from '../harness/fake-activities';

/**
 * The session workflow's commands on the real local dev server (the time-skipping server does not
 * model updates fully): a busy session rejects a prompt before anything reaches history, a queued
 * prompt waits its turn, and request ids stay answered across continue-as-new (the server is told to
 * suggest continue-as-new after a few history events, so it really happens).
 */
const dev = devServerWorkers({ suggestContinueAsNewAfter: 40 });

/** Every session of this file has the session id `s` (in its own workflow id and task queue). */
const start = (workflowId: string, taskQueue: string) => sessionStart('s', taskQueue, workflowId);

test('a prompt on a busy session is rejected with SESSION_BUSY and never reaches history; queued prompts run in order', async () => {
  const taskQueue = `tq-${randomUUID()}`;
  const workflowId = `session:${randomUUID()}`;
  const fakes = createRecordingActivities();
  fakes.hold();
  const worker = await dev.worker(taskQueue, fakes.activities);
  await worker.runUntil(async () => {
    const first = await dev.env.client.workflow.executeUpdateWithStart(promptUpdate, {
      args: [{ text: 'first' }],
      updateId: 'u1',
      startWorkflowOperation: start(workflowId, taskQueue),
    });
    expect(first).toEqual({ turn_id: 't1', turn_number: 1, agent_state: 'thinking', queued: false, duplicate: false });
    const handle = dev.env.client.workflow.getHandle(workflowId);
    const rejected = await handle.executeUpdate(promptUpdate, { args: [{ text: 'second' }], updateId: 'u2' }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(rejected).toBeInstanceOf(WorkflowUpdateFailedError);
    const cause = (rejected as WorkflowUpdateFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe('SESSION_BUSY');
    await expect(handle.executeUpdate(promptUpdate, { args: [{ text: '' }] })).rejects.toThrow(WorkflowUpdateFailedError);
    const history = await handle.fetchHistory();
    const accepted = (history.events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
    expect(accepted.map((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.protocolInstanceId)).toEqual(['u1']);

    // Queued while busy: accepted with its own turn, run after the current one.
    const queued = await handle.executeUpdate(promptUpdate, { args: [{ text: 'later', behavior: 'queue' }], updateId: 'u3' });
    expect(queued).toMatchObject({ turn_id: 't2', queued: true, queue_position: 1 });
    expect((await handle.query(sessionStateQuery)).queue.map((q) => q.text)).toEqual(['later']);
    fakes.release();
    await waitFor(() => handle.query(sessionStateQuery), (s: SessionSnapshot) => s.phase === 'idle' && s.last_turn === 2);
    expect(fakes.userMessages.map((m) => m.entry_id)).toEqual(['t1:user', 't2:user']);
    // The queued prompt is told at once (the running turn's state, one queued); each turn ends with
    // turn.finished then the state after it; idle only once nothing is queued.
    const tail = fakes.published.map((p) => p.event.event).filter((e) => e.type === 'turn.finished' || e.type === 'session.state');
    expect(tail.map((e) => (e.type === 'session.state' ? [e.phase, e.queue_length, e.turn_id] : e.type))).toEqual([
      ['thinking', 0, 't1'],
      ['thinking', 1, 't1'],
      'turn.finished',
      ['thinking', 1, null],
      ['thinking', 0, 't2'],
      'turn.finished',
      ['idle', 0, null],
    ]);
    await handle.terminate('test done');
  });
});

test('request ids are answered once, across continue-as-new', async () => {
  const taskQueue = `tq-${randomUUID()}`;
  const workflowId = `session:${randomUUID()}`;
  const fakes = createRecordingActivities();
  const worker = await dev.worker(taskQueue, fakes.activities);
  await worker.runUntil(async () => {
    const handle = dev.env.client.workflow.getHandle(workflowId);
    const firstRun = (await dev.env.client.workflow.executeUpdateWithStart(promptUpdate, { args: [{ text: 'p0', request_id: 'r0' }], updateId: 'r0', startWorkflowOperation: start(workflowId, taskQueue) }), (await handle.describe()).runId);
    await handle.executeUpdate(setSettingsUpdate, { args: [{ name: 'kept across runs', auto_retry: false }] });
    await waitFor(() => handle.query(sessionStateQuery), (s) => s.phase === 'idle');
    for (let i = 1; i < 8; i++) {
      await handle.executeUpdate(promptUpdate, { args: [{ text: `p${i}`, request_id: `r${i}` }], updateId: `r${i}` });
      await waitFor(() => handle.query(sessionStateQuery), (s) => s.phase === 'idle' && s.last_turn === i + 1);
    }
    // The server suggested continue-as-new along the way: a new run holds the session now.
    const latest = await handle.describe();
    expect(latest.runId).not.toBe(firstRun);
    // Update ids are only remembered per run by Temporal; the workflow carries them across runs.
    const again = await handle.executeUpdate(promptUpdate, { args: [{ text: 'p0', request_id: 'r0' }], updateId: 'r0' });
    expect(again).toMatchObject({ turn_id: 't1', duplicate: true });
    expect(fakes.userMessages).toHaveLength(8);
    const after = await handle.query(sessionStateQuery);
    expect(after.last_turn).toBe(8);
    expect(after.settings).toMatchObject({ name: 'kept across runs', auto_retry: false });
    await handle.terminate('test done');
  });
}, 30_000);

test('approvals: pending calls are in the state; approve, reject with a reason, and always (kept in the settings)', async () => {
  const taskQueue = `tq-${randomUUID()}`;
  const workflowId = `session:${randomUUID()}`;
  const fakes = createRecordingActivities({
    steps: [
      [
        { id: 'a', name: 'write_file', requires_approval: true },
        { id: 'b', name: 'shell_exec', requires_approval: true },
      ],
      [{ id: 'c', name: 'delete_file', requires_approval: true }],
    ],
  });
  const worker = await dev.worker(taskQueue, fakes.activities);
  await worker.runUntil(async () => {
    await dev.env.client.workflow.executeUpdateWithStart(promptUpdate, { args: [{ text: 'do it' }], startWorkflowOperation: start(workflowId, taskQueue) });
    const handle = dev.env.client.workflow.getHandle(workflowId);
    const waiting = await waitFor(() => handle.query(sessionStateQuery), (s) => s.pending_approvals.length === 2);
    expect(waiting).toMatchObject({ phase: 'waiting_approval', pending_approvals: [{ tool_call_id: 'a', tool: 'write_file' }, { tool_call_id: 'b', tool: 'shell_exec' }] });
    // Only a call that waits can be answered (an unknown one is refused after a short grace: a client may
    // answer a call the instant it is announced, before the turn has reported it as waiting).
    await expect(handle.executeUpdate(approvalUpdate, { args: [{ tool_call_id: 'zzz', decision: 'approve' }] })).rejects.toThrow(WorkflowUpdateFailedError);
    await handle.executeUpdate(approvalUpdate, { args: [{ tool_call_id: 'a', decision: 'always' }] });
    await handle.executeUpdate(approvalUpdate, { args: [{ tool_call_id: 'b', decision: 'reject', reason: 'not now' }] });
    const next = await waitFor(() => handle.query(sessionStateQuery), (s) => s.pending_approvals.length === 1);
    expect(next.pending_approvals).toEqual([{ tool_call_id: 'c', tool: 'delete_file' }]);
    expect(next.settings?.approval.always_allow).toEqual(['write_file']);
    await handle.executeUpdate(approvalUpdate, { args: [{ tool_call_id: 'c', decision: 'approve' }] });
    await waitFor(() => handle.query(sessionStateQuery), (s) => s.phase === 'idle');
    expect(fakes.toolRuns).toEqual(['a', 'c']);
    expect(fakes.toolResults).toEqual([
      { step: 0, calls: [{ id: 'a', disposition: 'ran' }, { id: 'b', disposition: 'rejected', reason: 'not now' }] },
      { step: 1, calls: [{ id: 'c', disposition: 'ran' }] },
    ]);
    await handle.terminate('test done');
  });
}, 60_000);

test('steering while calls wait for approval skips them, records the message, and the next step sees it', async () => {
  const taskQueue = `tq-${randomUUID()}`;
  const workflowId = `session:${randomUUID()}`;
  const fakes = createRecordingActivities({ steps: [[{ id: 'a', name: 'write_file', requires_approval: true }, { id: 'b', name: 'read_file', requires_approval: false }]] });
  const worker = await dev.worker(taskQueue, fakes.activities);
  await worker.runUntil(async () => {
    await dev.env.client.workflow.executeUpdateWithStart(promptUpdate, { args: [{ text: 'go' }], startWorkflowOperation: start(workflowId, taskQueue) });
    const handle = dev.env.client.workflow.getHandle(workflowId);
    await waitFor(() => handle.query(sessionStateQuery), (s) => s.pending_approvals.length === 1);
    fakes.hold();
    expect(await handle.executeUpdate(steerUpdate, { args: [{ text: 'use the other file' }] })).toEqual({ delivered: true, turn_id: 't1' });
    // The next step sees the message: wait until it runs (held), then steer again with a prompt.
    await waitFor(async () => fakes.modelSteps.length, (n) => n === 2);
    expect(await handle.executeUpdate(promptUpdate, { args: [{ text: 'and keep it short', behavior: 'steer' }] })).toMatchObject({ turn_id: 't1', steered: true, queued: false });
    fakes.release();
    await waitFor(() => handle.query(sessionStateQuery), (s) => s.phase === 'idle');
    expect(fakes.toolRuns).toEqual(['b']);
    expect(fakes.toolResults).toEqual([{ step: 0, calls: [{ id: 'a', disposition: 'skipped' }, { id: 'b', disposition: 'ran' }] }]);
    expect(fakes.userMessages.map((m) => [m.entry_id, m.text])).toEqual([
      ['t1:user', 'go'],
      ['t1:s0:steer:0', 'use the other file'],
      ['t1:s1:steer:0', 'and keep it short'],
    ]);
    expect(fakes.modelSteps.map((m) => m.step)).toEqual([0, 1, 2]);
    // Idle: nothing to steer (refused by the validator; the gateway answers `delivered: false`).
    await expect(handle.executeUpdate(steerUpdate, { args: [{ text: 'late' }] })).rejects.toThrow(WorkflowUpdateFailedError);
    await handle.terminate('test done');
  });
});

test('compaction: manual while idle (refused while busy), on a context overflow (then the step once more), past the threshold', async () => {
  const taskQueue = `tq-${randomUUID()}`;
  const workflowId = `session:${randomUUID()}`;
  const overflow = ApplicationFailure.create({ message: 'prompt is too long', type: 'provider.context_overflow', nonRetryable: true });
  // Step 0 overflows once, then asks for a tool with the context 90 % full: a threshold compaction before step 1.
  const fakes = createRecordingActivities({ failures: [overflow], steps: [[{ id: 'a', name: 'read_file', requires_approval: false }]], contextTokens: 900 });
  const worker = await dev.worker(taskQueue, fakes.activities);
  await worker.runUntil(async () => {
    await dev.env.client.workflow.executeUpdateWithStart(promptUpdate, { args: [{ text: 'go' }], startWorkflowOperation: start(workflowId, taskQueue) });
    const handle = dev.env.client.workflow.getHandle(workflowId);
    await waitFor(() => handle.query(sessionStateQuery), (s) => s.phase === 'idle');
    expect(fakes.compactions.map((c) => c.reason)).toEqual(['overflow', 'threshold']);
    expect(fakes.modelSteps.map((m) => [m.step, m.attempt])).toEqual([[0, 1], [0, 2], [1, 1]]);
    const manual = await handle.executeUpdate(compactUpdate, { args: [{ instructions: 'keep the API names' }] });
    expect(manual).toEqual({ compacted: true, summary: 'summary', tokens_before: 900, tokens_after: 200 });
    expect(fakes.compactions[2]).toMatchObject({ reason: 'manual', instructions: 'keep the API names' });
    const phases = fakes.published.map((p) => p.event.event).filter((e) => e.type === 'session.state').map((e) => (e as { phase: string }).phase);
    expect(phases).toContain('compacting');
    expect(phases[phases.length - 1]).toBe('idle');
    fakes.hold();
    await handle.executeUpdate(promptUpdate, { args: [{ text: 'busy now' }] });
    await expect(handle.executeUpdate(compactUpdate, { args: [{}] })).rejects.toThrow(WorkflowUpdateFailedError);
    fakes.release();
    await handle.terminate('test done');
  });
});

test('a tool activity that stops heartbeating is timed out (WORKER_ACTIVITY_HEARTBEAT_TIMEOUT) and run again', async () => {
  const taskQueue = `tq-${randomUUID()}`;
  const workflowId = `session:${randomUUID()}`;
  const fakes = createRecordingActivities({ steps: [[{ id: 't1', name: 'read_file', requires_approval: false }]], hangFirstToolAttempt: true });
  const worker = await dev.worker(taskQueue, fakes.activities, { shutdownGraceTime: '1 second' });
  await worker.runUntil(async () => {
    await dev.env.client.workflow.executeUpdateWithStart(promptUpdate, { args: [{ text: 'read it' }], startWorkflowOperation: start(workflowId, taskQueue) });
    const handle = dev.env.client.workflow.getHandle(workflowId);
    await waitFor(() => handle.query(sessionStateQuery), (s) => s.phase === 'idle' && s.last_turn === 1, 60_000);
    expect(fakes.toolRuns).toEqual(['t1', 't1']);
    expect(fakes.toolResults).toEqual([{ step: 0, calls: [{ id: 't1', disposition: 'ran' }] }]);
    await handle.terminate('test done');
  });
}, 90_000);

test('a long turn continues as new when Temporal suggests it and carries on with the next step', async () => {
  const taskQueue = `tq-${randomUUID()}`;
  const workflowId = `session:${randomUUID()}`;
  const steps = Array.from({ length: 8 }, (_, i) => [{ id: `c${i}`, name: 'read_file', requires_approval: false }]);
  const fakes = createRecordingActivities({ steps });
  const worker = await dev.worker(taskQueue, fakes.activities);
  await worker.runUntil(async () => {
    await dev.env.client.workflow.executeUpdateWithStart(promptUpdate, { args: [{ text: 'long job' }], startWorkflowOperation: start(workflowId, taskQueue) });
    const handle = dev.env.client.workflow.getHandle(workflowId);
    await waitFor(() => handle.query(sessionStateQuery), (s) => s.phase === 'idle' && s.last_turn === 1, 60_000);
    expect(fakes.modelSteps.map((m) => m.step)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(fakes.toolResults.map((r) => r.step)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // The turn child of session `s` (every session in this file is `s`, one after the other).
    const turn = await dev.env.client.workflow.getHandle('session:s:turn:1').describe();
    // The run that finished is not the one that started: the turn continued as new on the way.
    const first = await dev.env.client.workflow.getHandle('session:s:turn:1', turn.runId).fetchHistory();
    expect((first.events ?? [])[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId).toBeTruthy();
    await handle.terminate('test done');
  });
}, 90_000);

test('abort_retry ends a turn that waits for a provider retry, with that error', async () => {
  const taskQueue = `tq-${randomUUID()}`;
  const workflowId = `session:${randomUUID()}`;
  const failure = ApplicationFailure.create({ message: 'rate limited', type: 'provider.rate_limited', nonRetryable: true, details: [{ retry_after_ms: 30_000 }] });
  const fakes = createRecordingActivities({ failures: [failure] });
  const worker = await dev.worker(taskQueue, fakes.activities);
  await worker.runUntil(async () => {
    await dev.env.client.workflow.executeUpdateWithStart(promptUpdate, { args: [{ text: 'hi' }], startWorkflowOperation: start(workflowId, taskQueue) });
    const handle = dev.env.client.workflow.getHandle(workflowId);
    await waitFor(() => handle.query(sessionStateQuery), (s) => s.phase === 'retrying');
    expect(await handle.executeUpdate(abortRetryUpdate, { args: [] })).toEqual({ cancelled: true, turn_id: 't1' });
    expect((await handle.query(sessionStateQuery)).phase).toBe('idle');
    const events = fakes.published.map((p) => p.event.event);
    expect(events.find((e) => e.type === 'error')).toMatchObject({ message: 'rate limited (retry cancelled)' });
    expect(events.find((e) => e.type === 'turn.finished')).toMatchObject({ outcome: 'error' });
    expect(fakes.modelSteps).toHaveLength(1);
    await expect(handle.executeUpdate(abortRetryUpdate, { args: [] })).rejects.toThrow(WorkflowUpdateFailedError);
    await handle.terminate('test done');
  });
}, 60_000);

test('a queued prompt survives a worker restart and runs after the turn before it', async () => {
  const taskQueue = `tq-${randomUUID()}`;
  const workflowId = `session:${randomUUID()}`;
  const fakes = createRecordingActivities();
  fakes.hold();
  const first = await dev.worker(taskQueue, fakes.activities, { shutdownGraceTime: '1 second' });
  const running = first.run();
  await dev.env.client.workflow.executeUpdateWithStart(promptUpdate, { args: [{ text: 'one' }], startWorkflowOperation: start(workflowId, taskQueue) });
  const handle = dev.env.client.workflow.getHandle(workflowId);
  expect(await handle.executeUpdate(promptUpdate, { args: [{ text: 'two', behavior: 'queue' }] })).toMatchObject({ turn_id: 't2', queued: true });
  first.shutdown();
  fakes.release();
  await running;
  const second = await dev.worker(taskQueue, fakes.activities);
  await second.runUntil(async () => {
    await waitFor(() => handle.query(sessionStateQuery), (s) => s.phase === 'idle' && s.last_turn === 2, 60_000);
    expect(fakes.userMessages.map((m) => m.text)).toEqual(['one', 'two']);
    await handle.terminate('test done');
  });
}, 90_000);
