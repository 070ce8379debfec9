import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation } from '@temporalio/client';
import {
  HOOK_COORDINATOR_WORKFLOW_TYPE,
  hookCoordinatorId,
  hookCoordinatorViewQuery,
  hookDeliveryUpdate,
  type HookCoordinatorInput,
  type HookDeliveryReply,
} from '../../contracts/job-hook';
import { jobWorkflowId } from '../../contracts/job-workflow';
import { devServerWorkers, waitFor } from '../harness/dev-server-worker';
import { jobStack, type JobStack } from './job-stack';

/**
 * The coordinator's own life: past the history length the server suggests, it continues as new when
 * nothing runs, carrying the delivery ids it has answered; with nothing to do for its idle time it
 * ends, and the next delivery starts a new one. The server here suggests continue-as-new early. (A
 * delivery that meets a run while it closes is refused by the server as retryable, RESOURCE_EXHAUSTED,
 * and the client sends it again: the server logs that, the delivery is answered.)
 */
const dev = devServerWorkers({ suggestContinueAsNewAfter: 25 });
let stack: JobStack;
const IDLE_MS = 3_000;

beforeEach(async () => {
  stack = await jobStack(dev.env, dev.bundle, `tq-${randomUUID()}`);
  await stack.script('hook-quick', [[{ type: 'text', text: 'quick done' }]]);
});
afterEach(async () => stack?.cleanup());

function deliver(hook: string, delivery_id: string, job_id: string): Promise<HookDeliveryReply> {
  const input: HookCoordinatorInput = { hook, key: null, idle_timeout_ms: IDLE_MS };
  const start = new WithStartWorkflowOperation(HOOK_COORDINATOR_WORKFLOW_TYPE, { workflowId: hookCoordinatorId(hook, null), taskQueue: stack.taskQueue, args: [input], workflowIdConflictPolicy: 'USE_EXISTING' });
  const spec = { version: 1 as const, task: { prompt: 'quick', project_path: stack.repo, model: 'scripted/hook-quick' } };
  return dev.env.client.workflow.executeUpdateWithStart(hookDeliveryUpdate, { args: [{ delivery_id, job_id, spec, mode: 'parallel' }], updateId: randomUUID(), startWorkflowOperation: start });
}

test('a coordinator continues as new carrying the delivery ids it answered, ends when idle, and comes back on the next delivery', async () => {
  const hook = `h${randomUUID().slice(0, 6)}`;
  const coordinator = () => dev.env.client.workflow.getHandle(hookCoordinatorId(hook, null));
  await stack.worker.runUntil(async () => {
    expect((await deliver(hook, 'd-0', `${hook}-0`)).outcome).toBe('started');
    const firstRun = (await coordinator().describe()).runId;
    await dev.env.client.workflow.getHandle(jobWorkflowId(`${hook}-0`)).result();
    for (let i = 1; i < 4; i++) {
      expect((await deliver(hook, `d-${i}`, `${hook}-${i}`)).outcome).toBe('started');
      await dev.env.client.workflow.getHandle(jobWorkflowId(`${hook}-${i}`)).result();
    }
    // Once idle past the suggested length, a new run holds every delivery id answered.
    const now = await waitFor(() => coordinator().describe(), (d) => d.runId !== firstRun && d.status.name === 'RUNNING');
    expect(now.runId).not.toBe(firstRun);
    expect(await waitFor(() => coordinator().query(hookCoordinatorViewQuery), (v) => v.running.length === 0)).toEqual({ running: [], queued: [], seen: 4 });
    expect(await deliver(hook, 'd-0', `${hook}-0`)).toEqual({ delivery_id: 'd-0', job_id: `${hook}-0`, outcome: 'duplicate' });
    // Idle for IDLE_MS: it ends; a new delivery starts a new coordinator.
    await waitFor(() => coordinator().describe(), (d) => d.status.name === 'COMPLETED', 60_000);
    expect((await deliver(hook, 'd-new', `${hook}-new`)).outcome).toBe('started');
    await dev.env.client.workflow.getHandle(jobWorkflowId(`${hook}-new`)).result();
  });
}, 180_000);
