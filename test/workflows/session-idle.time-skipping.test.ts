import '../harness/quiet-temporal';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { binaryPaths } from '../../infra/bootstrap/paths';
import { buildWorkflowBundle } from '../../services/worker/workflow-bundle';
import { promptUpdate, type SessionWorkflowResult } from '../../contracts/workflow-messages';
import { createRecordingActivities } from '../harness/fake-activities';

/**
 * Session workflow timers on the Java time-skipping test server (started by the SDK through our
 * wrapper): an idle session completes after its idle timeout, and not before.
 */
let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  [env, bundle] = await Promise.all([
    TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: binaryPaths().testServerWrapper } },
    }),
    buildWorkflowBundle(),
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
      args: [{ session_id: 's1', project_path: '/p', model: 'scripted/echo', idle_timeout_ms: HOUR }],
    });
    // Not yet: 59 minutes of (skipped) time later it still runs.
    await env.sleep(59 * 60 * 1000);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    await env.sleep(2 * 60 * 1000);
    const result = (await handle.result()) as SessionWorkflowResult;
    expect(result).toEqual({ reason: 'idle', last_turn: 7 });
  });
});

test('the idle timer restarts after a turn, and the next turn number follows the stored one', async () => {
  const taskQueue = `tq-${randomUUID()}`;
  const fakes = createRecordingActivities({ lastTurn: 2 });
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: bundle, activities: fakes.activities });
  await worker.runUntil(async () => {
    const handle = await env.client.workflow.start('sessionWorkflow', {
      taskQueue,
      workflowId: `session:${randomUUID()}`,
      args: [{ session_id: 's2', project_path: '/p', model: 'scripted/echo', idle_timeout_ms: HOUR }],
    });
    await env.sleep(30 * 60 * 1000);
    const accepted = await handle.executeUpdate(promptUpdate, { args: [{ text: 'hello' }] });
    expect(accepted).toMatchObject({ turn_id: 't3', turn_number: 3 });
    const result = (await handle.result()) as SessionWorkflowResult;
    expect(result).toEqual({ reason: 'idle', last_turn: 3 });
    expect(fakes.userMessages).toEqual([{ entry_id: 't3:user', text: 'hello' }]);
    const types = fakes.published.map((p) => p.event.event.type);
    expect(types).toEqual(['turn.started', 'session.state', 'turn.finished', 'session.state']);
  });
});
