import '../harness/quiet-temporal';
import { WorkflowUpdateFailedError, WithStartWorkflowOperation } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { binaryPaths } from '../../infra/bootstrap/paths';
import { buildWorkflowBundle } from '../../services/worker/workflow-bundle';
import { promptUpdate, sessionStateQuery } from '../../contracts/workflow-messages';
import { createRecordingActivities } from '../harness/fake-activities';

/**
 * The prompt update's validator on the real local dev server (the time-skipping server does not
 * model updates fully): a busy session rejects a prompt before anything reaches history.
 */
let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  [env, bundle] = await Promise.all([
    TestWorkflowEnvironment.createLocal({
      server: { executable: { type: 'existing-path', path: binaryPaths().temporal } },
    }),
    buildWorkflowBundle(),
  ]);
}, 120_000);

afterAll(async () => {
  await env?.teardown();
});

async function waitFor<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; last value ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('a prompt on a busy session is rejected with SESSION_BUSY and never reaches history', async () => {
  const taskQueue = `tq-${randomUUID()}`;
  const workflowId = `session:${randomUUID()}`;
  const fakes = createRecordingActivities();
  fakes.hold();
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: bundle, activities: fakes.activities });
  await worker.runUntil(async () => {
    const first = await env.client.workflow.executeUpdateWithStart(promptUpdate, {
      args: [{ text: 'first' }],
      updateId: 'u1',
      startWorkflowOperation: new WithStartWorkflowOperation('sessionWorkflow', {
        workflowId,
        taskQueue,
        args: [{ session_id: 's', project_path: '/p', model: 'scripted/echo' }],
        workflowIdConflictPolicy: 'USE_EXISTING',
      }),
    });
    expect(first).toEqual({ turn_id: 't1', turn_number: 1, agent_state: 'thinking' });

    const handle = env.client.workflow.getHandle(workflowId);
    const rejected = await handle.executeUpdate(promptUpdate, { args: [{ text: 'second' }], updateId: 'u2' }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(rejected).toBeInstanceOf(WorkflowUpdateFailedError);
    const cause = (rejected as WorkflowUpdateFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe('SESSION_BUSY');

    // An empty prompt is rejected by the same validator.
    await expect(handle.executeUpdate(promptUpdate, { args: [{ text: '' }] })).rejects.toThrow(WorkflowUpdateFailedError);

    // Only the first update was ever accepted into history.
    const history = await handle.fetchHistory();
    const accepted = (history.events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
    expect(accepted.map((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.protocolInstanceId)).toEqual(['u1']);

    fakes.release();
    await waitFor(() => handle.query(sessionStateQuery), (s) => s.phase === 'idle' && s.active_turn === null);

    // Idle again: the next prompt is turn 2, and replaying its update id answers the same turn.
    const second = await handle.executeUpdate(promptUpdate, { args: [{ text: 'third' }], updateId: 'u3' });
    expect(second.turn_id).toBe('t2');
    const again = await handle.executeUpdate(promptUpdate, { args: [{ text: 'third' }], updateId: 'u3' });
    expect(again.turn_id).toBe('t2');
    await waitFor(() => handle.query(sessionStateQuery), (s) => s.phase === 'idle' && s.last_turn === 2);
    expect(fakes.userMessages.map((m) => m.entry_id)).toEqual(['t1:user', 't2:user']);
    await handle.terminate('test done');
  });
});
