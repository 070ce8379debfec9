import '../harness/quiet-temporal';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { binaryPaths } from '../../infra/bootstrap/paths';
import { loadWorkflowBundle } from '../../services/worker/workflow-bundle';
import { ApplicationFailure } from '@temporalio/common';
import { promptUpdate, type SessionWorkflowResult } from '../../contracts/session-workflow';
import { createRecordingActivities } from '../harness/fake-activities';

/**
 * Session workflow timers on the Java time-skipping test server (started by the SDK through our
 * wrapper): an idle session completes after its idle timeout, and not before; what it must remember
 * (turn counter, answered request ids) survives into the next run.
 */
let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  [env, bundle] = await Promise.all([
    TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: binaryPaths().testServerWrapper } },
    }),
    // Through the worker's on-disk cache (test/harness/time-skipping-env.ts says why).
    loadWorkflowBundle(),
  ]);
}, 120_000);

afterAll(async () => {
  await env?.teardown();
});

const HOUR = 60 * 60 * 1000;

test('an idle session workflow completes after its idle timeout, keeping the turn counter', async () => {
  const taskQueue = `tq-${randomUUID()}`;
  const fakes = createRecordingActivities({ lastTurn: 7 });
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: bundle, activities: fakes.activities });
  await worker.runUntil(async () => {
    const handle = await env.client.workflow.start('sessionWorkflow', {
      taskQueue,
      workflowId: `session:${randomUUID()}`,
      args: [{ session_id: 's1', idle_timeout_ms: HOUR }],
    });
    await env.sleep(59 * 60 * 1000);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    await env.sleep(2 * 60 * 1000);
    const result = (await handle.result()) as SessionWorkflowResult;
    expect(result).toEqual({ reason: 'idle', last_turn: 7 });
  });
});

test('a retried prompt after idle completion answers its turn and starts nothing; numbering continues', async () => {
  const taskQueue = `tq-${randomUUID()}`;
  const fakes = createRecordingActivities({ lastTurn: 2 });
  const workflowId = `session:${randomUUID()}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: bundle, activities: fakes.activities });
  await worker.runUntil(async () => {
    const run1 = await env.client.workflow.start('sessionWorkflow', { taskQueue, workflowId, args: [{ session_id: 's2', idle_timeout_ms: HOUR }] });
    await env.sleep(30 * 60 * 1000);
    const accepted = await run1.executeUpdate(promptUpdate, { args: [{ text: 'hello', request_id: 'req-1' }], updateId: 'req-1' });
    expect(accepted).toMatchObject({ turn_id: 't3', turn_number: 3, duplicate: false });
    expect((await run1.result()) as SessionWorkflowResult).toEqual({ reason: 'idle', last_turn: 3 });
    const types = fakes.published.map((p) => p.event.event.type);
    expect(types).toEqual(['session.state', 'turn.started', 'turn.finished', 'session.state']);

    // The workflow idled out; the client retries the same request against a new run.
    const run2 = await env.client.workflow.start('sessionWorkflow', { taskQueue, workflowId, args: [{ session_id: 's2', idle_timeout_ms: HOUR }] });
    const again = await run2.executeUpdate(promptUpdate, { args: [{ text: 'hello', request_id: 'req-1' }], updateId: 'req-1' });
    expect(again).toMatchObject({ turn_id: 't3', duplicate: true });
    const next = await run2.executeUpdate(promptUpdate, { args: [{ text: 'more' }] });
    expect(next.turn_id).toBe('t4');
    expect((await run2.result()) as SessionWorkflowResult).toEqual({ reason: 'idle', last_turn: 4 });
    expect(fakes.userMessages.map((m) => m.entry_id)).toEqual(['t3:user', 't4:user']);
  });
});

test('an approval nobody answers takes the policy default (reject) after its timeout; the turn goes on', async () => {
  const taskQueue = `tq-${randomUUID()}`;
  const fakes = createRecordingActivities({ steps: [[{ id: 'c1', name: 'edit_file', requires_approval: true }, { id: 'c2', name: 'read_file', requires_approval: false }]] });
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: bundle, activities: fakes.activities });
  await worker.runUntil(async () => {
    const handle = await env.client.workflow.start('sessionWorkflow', { taskQueue, workflowId: `session:${randomUUID()}`, args: [{ session_id: 's3', idle_timeout_ms: HOUR }] });
    await handle.executeUpdate(promptUpdate, { args: [{ text: 'edit it' }] });
    // Waiting on result() lets the server skip time: through the 10-minute approval timer, then the idle timeout.
    expect((await handle.result()) as SessionWorkflowResult).toEqual({ reason: 'idle', last_turn: 1 });
    expect(fakes.toolRuns).toEqual(['c2']);
    expect(fakes.toolResults).toEqual([{ step: 0, calls: [{ id: 'c1', disposition: 'rejected', reason: 'no answer within 600 s' }, { id: 'c2', disposition: 'ran' }] }]);
    expect(fakes.modelSteps.map((m) => m.step)).toEqual([0, 1]);
    const resolved = fakes.published.map((p) => p.event.event).filter((e) => e.type === 'approval.resolved');
    expect(resolved).toEqual([{ type: 'approval.resolved', tool_call_id: 'c1', decision: 'timed_out' }]);
  });
});

const providerFailure = (kind: string, retryAfterMs?: number) =>
  ApplicationFailure.create({ message: `${kind} from the provider`, type: `provider.${kind}`, nonRetryable: true, details: [{ provider: 'test', ...(retryAfterMs !== undefined ? { retry_after_ms: retryAfterMs } : {}) }] });

test('retries follow retry-after, back off without it, and a wait beyond the cap fails the turn clearly', async () => {
  const taskQueue = `tq-${randomUUID()}`;
  const fakes = createRecordingActivities({
    failures: [providerFailure('rate_limited', 7_000), providerFailure('transient'), providerFailure('overloaded'), providerFailure('rate_limited', 120_000)],
  });
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: bundle, activities: fakes.activities });
  await worker.runUntil(async () => {
    const handle = await env.client.workflow.start('sessionWorkflow', { taskQueue, workflowId: `session:${randomUUID()}`, args: [{ session_id: 's4', idle_timeout_ms: HOUR }] });
    await handle.executeUpdate(promptUpdate, { args: [{ text: 'hi' }] });
    expect((await handle.result()) as SessionWorkflowResult).toEqual({ reason: 'idle', last_turn: 1 });
    const events = fakes.published.map((p) => p.event.event);
    const retries = events.filter((e) => e.type === 'retry.scheduled') as Array<{ attempt: number; delay_ms: number; kind: string }>;
    expect(retries.map((r) => [r.attempt, r.delay_ms, r.kind])).toEqual([
      [1, 7_000, 'rate_limited'],
      [2, 2_000, 'transient'],
      [3, 4_000, 'overloaded'],
    ]);
    expect(fakes.modelSteps.map((m) => m.attempt)).toEqual([1, 2, 3, 4]);
    const error = events.find((e) => e.type === 'error') as { message: string; kind: string };
    expect(error).toMatchObject({ kind: 'rate_limited' });
    expect(error.message).toMatch(/asked to wait 120 s, more than the 60 s/);
    expect(events.find((e) => e.type === 'turn.finished')).toMatchObject({ outcome: 'error' });
  });
});
