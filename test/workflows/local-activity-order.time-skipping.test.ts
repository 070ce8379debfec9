import '../harness/quiet-temporal';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { promptUpdate, sessionStateQuery, setSettingsUpdate } from '../../contracts/session-workflow';
import { createRecordingActivities } from '../harness/fake-activities';
import { timeSkippingEnvAndBundle } from '../harness/time-skipping-env';

/**
 * A rename and a prompt taken in one workflow task, where the rename's store write (a local activity)
 * finishes after the turn's first publish (another one). The session's history must replay on a worker
 * that never saw it run: the worker that takes a session over after another was killed does exactly
 * that. Before `local-activities-in-order` the two resolved in the order they finished, which replay
 * does not reproduce: "No command scheduled for event … WorkflowExecutionUpdateCompleted", and every
 * later workflow task of the session failed (found by `npm run bench:load`).
 */
let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  [env, bundle] = await timeSkippingEnvAndBundle();
}, 120_000);

afterAll(async () => {
  await env?.teardown();
});

test('a settings change and a prompt in one workflow task replay on a fresh worker', async () => {
  const fakes = createRecordingActivities();
  const persist = fakes.activities.persistSessionRecord;
  // The rename's write is slow (a busy store); the turn's publishes are not.
  fakes.activities.persistSessionRecord = async (input) => {
    if (input.settings) await new Promise((r) => setTimeout(r, 400));
    return persist(input);
  };
  const taskQueue = `tq-${randomUUID()}`;
  const workflowId = `session:${randomUUID()}`;
  // Started and sent both commands before any worker polls: its first workflow task carries them all.
  const handle = await env.client.workflow.start('sessionWorkflow', { taskQueue, workflowId, args: [{ session_id: `s-${randomUUID()}`, idle_timeout_ms: 60 * 60 * 1000, turns_publish_state: true }] });
  const renamed = handle.executeUpdate(setSettingsUpdate, { args: [{ name: 'renamed' }], updateId: 'rename-1' });
  const prompted = handle.executeUpdate(promptUpdate, { args: [{ text: 'hello' }], updateId: 'prompt-1' });
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: bundle, activities: fakes.activities });
  await worker.runUntil(async () => {
    await Promise.all([renamed, prompted]);
    for (let i = 0; ; i++) {
      const s = await handle.query(sessionStateQuery);
      if (s.phase === 'idle' && s.last_turn === 1) break;
      if (i > 300) throw new Error('the turn never finished');
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  const history = await handle.fetchHistory();
  await handle.terminate('test done').catch(() => undefined);
  // What a worker that takes the session over does first: replay it from the start.
  await expect(Worker.runReplayHistory({ workflowBundle: bundle }, history, workflowId)).resolves.toBeUndefined();
}, 90_000);
