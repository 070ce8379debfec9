import '../harness/quiet-temporal';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Context } from '@temporalio/activity';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { WorkflowUpdateStage, type WorkflowHandle } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { checkpointsUpdate } from '../../contracts/checkpoints';
import { abortUpdate, clearQueueUpdate, compactUpdate, interruptUpdate, promptUpdate, sessionStateQuery, steerUpdate } from '../../contracts/session-workflow';
import { createRecordingActivities } from '../harness/fake-activities';
import { timeSkippingEnvAndBundle } from '../harness/time-skipping-env';

/**
 * Abort, interrupt and steer that arrive after the session has chosen the next turn but before its
 * child workflow exists (the session is publishing the turn's first state): each is applied, and its
 * answer says so. A queued turn can be aborted by its id. clear_queue during a compaction keeps the
 * phase `compacting`; a revert announces its phase.
 */
let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  [env, bundle] = await timeSkippingEnvAndBundle();
}, 120_000);

afterAll(async () => {
  await env?.teardown();
});

const HOUR = 60 * 60 * 1000;
/**
 * An update that arrives while a local activity is held (holdTurnStart) reaches the workflow only when
 * its worker heartbeats the workflow task, at 80% of this timeout: Temporal's 10 s default made each of
 * those updates wait 8 s (two tests took 26 and 32 s). Shorter, they wait under 2 s; the order of
 * events the tests check is the same.
 */
const WORKFLOW_TASK_TIMEOUT = '2 seconds';
type Fakes = ReturnType<typeof createRecordingActivities>;

/** Holds the session's first publish of turn `turnId`'s state: the turn is chosen, its child not started. */
function holdTurnStart(fakes: Fakes, turnId: string) {
  const publish = fakes.activities.publishEvents;
  let held = false;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let reached: () => void = () => undefined;
  const atGate = new Promise<void>((resolve) => (reached = resolve));
  fakes.activities.publishEvents = async (sessionId, events) => {
    if (!held && events.some((e) => e.id.startsWith('s:') && e.event.type === 'session.state' && e.turn_id === turnId)) {
      held = true;
      reached();
      await gate;
    }
    return publish(sessionId, events);
  };
  return { atGate, release };
}

async function withSession(fakes: Fakes, body: (handle: WorkflowHandle) => Promise<void>): Promise<void> {
  const taskQueue = `tq-${randomUUID()}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: bundle, activities: fakes.activities });
  await worker.runUntil(async () => {
    const handle = await env.client.workflow.start('sessionWorkflow', { taskQueue, workflowId: `session:${randomUUID()}`, workflowTaskTimeout: WORKFLOW_TASK_TIMEOUT, args: [{ session_id: `s-${randomUUID()}`, idle_timeout_ms: HOUR, turns_publish_state: true }] });
    try {
      await body(handle);
    } finally {
      await handle.terminate('test done');
    }
  });
}

const finished = (fakes: Fakes) => fakes.published.map((p) => p.event.event).filter((e) => e.type === 'turn.finished') as Array<{ turn_id: string; outcome: string }>;
const untilIdle = async (handle: WorkflowHandle, lastTurn: number) => {
  for (let i = 0; i < 300; i++) {
    const s = await handle.query(sessionStateQuery);
    if (s.phase === 'idle' && s.last_turn === lastTurn) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the session never became idle');
};

test('an abort (an old client: no arguments) between the choice of a turn and its start ends it aborted', async () => {
  const fakes = createRecordingActivities();
  const gate = holdTurnStart(fakes, 't1');
  // The model streams until it is cancelled, as a real provider call does (it would otherwise answer at
  // once, and the turn end `done` before the abort reached it: answered `{aborted: false, ended: true}`).
  fakes.activities.streamModelStep = async () => {
    for (;;) {
      Context.current().heartbeat();
      await Context.current().sleep(50);
    }
  };
  await withSession(fakes, async (handle) => {
    await handle.executeUpdate(promptUpdate, { args: [{ text: 'hello' }] });
    await gate.atGate;
    // The update is in history (accepted) before the turn's start goes on: waited for, not slept on.
    const answer = await handle.startUpdate('abort', { args: [], waitForStage: WorkflowUpdateStage.ACCEPTED });
    gate.release();
    const got = await answer.result();
    expect(got).toEqual({ aborted: true, turn_id: 't1' });
    await untilIdle(handle, 1);
    expect(finished(fakes)).toEqual([expect.objectContaining({ turn_id: 't1', outcome: 'aborted' })]);
  });
}, 60_000);

test('interrupt and steer before the child exists reach it as it starts', async () => {
  const fakes = createRecordingActivities({ steps: [[{ id: 'c1', name: 'read_file', requires_approval: false }]] });
  const gate = holdTurnStart(fakes, 't1');
  await withSession(fakes, async (handle) => {
    await handle.executeUpdate(promptUpdate, { args: [{ text: 'read it' }] });
    await gate.atGate;
    // Both accepted (in history) before the turn's start goes on; a sleep instead lost the race on a
    // busy machine (CI: the interrupt landed after step 0 and the model was called again).
    const steered = await handle.startUpdate(steerUpdate, { args: [{ text: 'be brief' }], waitForStage: WorkflowUpdateStage.ACCEPTED });
    const interrupted = await handle.startUpdate(interruptUpdate, { args: [{ turn_id: 't1' }], waitForStage: WorkflowUpdateStage.ACCEPTED });
    gate.release();
    expect(await steered.result()).toEqual({ delivered: true, turn_id: 't1' });
    expect(await interrupted.result()).toEqual({ pending: true, turn_id: 't1' });
    await untilIdle(handle, 1);
    // One step and its tool ran; the steering was recorded; the model was not called again.
    expect(fakes.modelSteps.map((m) => m.step)).toEqual([0]);
    // (A local activity may run again when its workflow task is retried: the store keys entries by id.)
    expect([...new Map(fakes.userMessages.map((m) => [m.entry_id, m.text])).values()]).toEqual(['read it', 'be brief']);
    expect(finished(fakes)).toEqual([expect.objectContaining({ turn_id: 't1', outcome: 'done' })]);
    // They went with the child's start, not as signals after it (which a quick first step could outrun).
    const events = (await handle.fetchHistory()).events ?? [];
    const start = events.find((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)!.startChildWorkflowExecutionInitiatedEventAttributes!;
    const input = JSON.parse(Buffer.from(start.input!.payloads![0]!.data!).toString()) as { steering?: string[]; interrupted?: boolean };
    expect([input.steering, input.interrupted]).toEqual([['be brief'], true]);
    const signals = events.flatMap((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName ?? []);
    expect(signals.filter((name) => name === 'turnSteer' || name === 'turnInterrupt')).toEqual([]);
  });
}, 60_000);

test('a queued turn aborted by its id is dropped; the running one goes on; an ended turn is answered, not failed', async () => {
  const fakes = createRecordingActivities();
  fakes.hold();
  await withSession(fakes, async (handle) => {
    await handle.executeUpdate(promptUpdate, { args: [{ text: 'first' }] });
    await handle.executeUpdate(promptUpdate, { args: [{ text: 'second', behavior: 'queue' }] });
    expect(await handle.executeUpdate(abortUpdate, { args: [{ turn_id: 't2' }] })).toEqual({ aborted: true, turn_id: 't2' });
    expect((await handle.query(sessionStateQuery)).queue).toEqual([]);
    fakes.release();
    await untilIdle(handle, 2);
    expect(finished(fakes).map((f) => [f.turn_id, f.outcome])).toEqual([
      ['t2', 'aborted'],
      ['t1', 'done'],
    ]);
    expect(fakes.modelSteps.map((m) => m.turn_id)).toEqual(['t1']);
    const late = await handle.executeUpdate(abortUpdate, { args: [{ turn_id: 't1' }] }).catch((e: Error) => (e.cause instanceof Error ? e.cause.message : e.message));
    expect(late).toMatch(/turn t1 of session .* is not running or queued/);
  });
}, 60_000);

test('clear_queue during a compaction keeps the phase compacting; a revert announces its phase', async () => {
  const fakes = createRecordingActivities();
  const compact = fakes.activities.compactSession;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  fakes.activities.compactSession = async (input) => {
    await gate;
    return compact(input);
  };
  await withSession(fakes, async (handle) => {
    await handle.executeUpdate(promptUpdate, { args: [{ text: 'first' }] });
    await untilIdle(handle, 1);
    const compacted = handle.executeUpdate(compactUpdate, { args: [{}] });
    for (let i = 0; i < 100 && (await handle.query(sessionStateQuery)).phase !== 'compacting'; i++) await new Promise((r) => setTimeout(r, 50));
    await handle.executeUpdate(promptUpdate, { args: [{ text: 'later', behavior: 'queue' }] });
    expect(await handle.executeUpdate(clearQueueUpdate, { args: [] })).toEqual({ cleared: 1 });
    expect((await handle.query(sessionStateQuery)).phase).toBe('compacting');
    release();
    await compacted;
    await handle.executeUpdate(checkpointsUpdate, { args: [{ op: 'revert', turn_id: 't1' }] });
    const phases = fakes.published.map((p) => p.event.event).filter((e) => e.type === 'session.state').map((e) => (e as { phase: string }).phase);
    // After the first turn: compacting, (the queue cleared: still compacting), idle; the revert: tool_execution, idle.
    expect(phases.slice(-5)).toEqual(['compacting', 'compacting', 'idle', 'tool_execution', 'idle']);
  });
}, 60_000);
