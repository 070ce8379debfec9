import '../harness/quiet-temporal';
import { Worker, bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { PRELOADED_WORKFLOW_MODULES } from '../../services/worker/workflow-bundle';
import { promptUpdate, sessionStateQuery } from '../../contracts/session-workflow';
import { sessionWorkflowId, turnWorkflowId } from '../../contracts/workflow-ids';
import { devServerWorkers, sessionStart, waitFor } from '../harness/dev-server-worker';
import { createRecordingActivities } from '../harness/fake-activities';
import { UPGRADE_NOTICE } from './fixtures/upgrade/announce-upgrade';

/**
 * A deploy while a turn runs (docs/workflow-versioning.md): a turn starts on the current workflow code,
 * the worker is replaced by one whose turn workflow changed behind `patched()`, and the turn finishes
 * on the new worker the old way while a new turn takes the new path. The same change without the
 * guard cannot replay the running turn's history.
 */
const dev = devServerWorkers();
let patched: WorkflowBundleWithSourceMap;
let unguarded: WorkflowBundleWithSourceMap;

const bundleOf = (entry: string) =>
  bundleWorkflowCode({ workflowsPath: path.join(__dirname, 'fixtures', 'upgrade', entry), preloadModules: PRELOADED_WORKFLOW_MODULES, logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } });

beforeAll(async () => {
  // After the current code's bundle (devServerWorkers' beforeAll), one at a time: bundling is CPU-heavy.
  patched = await bundleOf('v2-patched.ts');
  unguarded = await bundleOf('v2-unguarded.ts');
}, 240_000);

test('a turn started on the current code finishes on a worker whose turn workflow changed behind patched()', async () => {
  const sessionId = `s-${randomUUID()}`;
  const taskQueue = `tq-${randomUUID()}`;
  const fakes = createRecordingActivities({ steps: [[{ id: 'c1', name: 'read_file', requires_approval: false }]] });
  fakes.hold();
  const v1 = await dev.worker(taskQueue, fakes.activities, { shutdownGraceTime: '1 second' });
  const v1Running = v1.run();
  const start = sessionStart(sessionId, taskQueue);
  await dev.env.client.workflow.executeUpdateWithStart(promptUpdate, { args: [{ text: 'read it' }], startWorkflowOperation: start });
  await waitFor(async () => fakes.modelSteps.length, (n) => n === 1);
  const turn1 = dev.env.client.workflow.getHandle(turnWorkflowId(sessionId, 1));
  const runningHistory = await turn1.fetchHistory();

  // The deploy: the old worker stops, its model step ends meanwhile, the new worker takes over.
  v1.shutdown();
  fakes.release();
  await v1Running;
  const v2 = await dev.worker(taskQueue, fakes.activities, { workflowBundle: patched });
  const session = dev.env.client.workflow.getHandle(sessionWorkflowId(sessionId));
  await v2.runUntil(async () => {
    await waitFor(() => session.query(sessionStateQuery), (s) => s.phase === 'idle' && s.last_turn === 1);
    expect(await turn1.result()).toEqual({ turn_id: 't1', outcome: 'done', steps: 2 });
    await session.executeUpdate(promptUpdate, { args: [{ text: 'again' }] });
    await waitFor(() => session.query(sessionStateQuery), (s) => s.phase === 'idle' && s.last_turn === 2);
    await session.terminate('test done');
  });
  // The running turn kept the old path; the turn started after the deploy took the new one.
  const notices = fakes.published.map((p) => p.event).filter((e) => e.event.type === 'notice' && e.event.message === UPGRADE_NOTICE);
  expect(notices.map((e) => e.turn_id)).toEqual(['t2']);
  expect(fakes.modelSteps.map((m) => `${m.turn_id}:s${m.step}`)).toEqual(['t1:s0', 't1:s1', 't2:s0']);

  // Without the guard the new worker could not have continued that turn.
  const replayed = Worker.runReplayHistory({ workflowBundle: unguarded }, runningHistory, turn1.workflowId);
  await expect(replayed).rejects.toThrow(DeterminismViolationError);
  await expect(replayed).rejects.toThrow(/Nondeterminism error/);
  await expect(Worker.runReplayHistory({ workflowBundle: patched }, runningHistory, turn1.workflowId)).resolves.toBeUndefined();
}, 120_000);
