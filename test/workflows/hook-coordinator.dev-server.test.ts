import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation, WorkflowNotFoundError } from '@temporalio/client';
import {
  HOOK_COORDINATOR_WORKFLOW_TYPE,
  hookCoordinatorId,
  hookCoordinatorViewQuery,
  hookDeliveryUpdate,
  type HookCoordinatorInput,
  type HookDeliveryMode,
  type HookDeliveryReply,
} from '../../contracts/job-hook';
import type { JobReport } from '../../contracts/job-report';
import { escalationAnswerSignal, jobProgressQuery, jobWorkflowId } from '../../contracts/job-workflow';
import { devServerWorkers, waitFor } from '../harness/dev-server-worker';
import { jobStack, type JobStack } from './job-stack';

/**
 * The hook coordinator (workflows/hook/hook-coordinator.ts) on the dev server with real jobs under it:
 * the job workflow, its turn, the scripted model and the real workspace activities. A "slow" job is
 * one whose shell call is escalated: it waits for a person's answer, which the test gives when it
 * wants the job to end. Deliveries are sent the way the gateway sends them: update-with-start, one
 * update id per request (a repeated delivery is a new request: the coordinator's record answers it).
 */
const dev = devServerWorkers();
let stack: JobStack;

beforeEach(async () => {
  stack = await jobStack(dev.env, dev.bundle, `tq-${randomUUID()}`);
  // Slow: a shell call the policy escalates, then an answer. Quick: an answer at once.
  await stack.script('hook-slow', [[{ type: 'tool_call', name: 'shell_exec', args: { command: 'echo slow' } }], [{ type: 'text', text: 'slow done' }]]);
  await stack.script('hook-quick', [[{ type: 'text', text: 'quick done' }]]);
});
afterEach(async () => stack?.cleanup());

const spec = (model: 'hook-slow' | 'hook-quick') => ({
  version: 1 as const,
  task: { prompt: `run ${model}`, project_path: stack.repo, model: `scripted/${model}` },
  policy: { tools: { shell_exec: 'escalate' as const }, escalation: { timeout_s: 3600 } },
});

function deliver(hook: string, key: string | null, delivery_id: string, job_id: string, mode: HookDeliveryMode, model: 'hook-slow' | 'hook-quick'): Promise<HookDeliveryReply> {
  const input: HookCoordinatorInput = { hook, key };
  const start = new WithStartWorkflowOperation(HOOK_COORDINATOR_WORKFLOW_TYPE, {
    workflowId: hookCoordinatorId(hook, key),
    taskQueue: stack.taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  return dev.env.client.workflow.executeUpdateWithStart(hookDeliveryUpdate, { args: [{ delivery_id, job_id, spec: spec(model), mode }], updateId: randomUUID(), startWorkflowOperation: start });
}

const job = (id: string) => dev.env.client.workflow.getHandle(jobWorkflowId(id));
const report = (id: string) => job(id).result() as Promise<JobReport>;

/** Waits until the job's shell call waits for a person, then answers yes: the job then ends. */
async function release(id: string): Promise<void> {
  const waiting = await waitFor(() => job(id).query(jobProgressQuery), (p) => p.escalations.length > 0, 60_000);
  await job(id).signal(escalationAnswerSignal, { tool_call_id: waiting.escalations[0]!.tool_call_id, decision: 'allow', by: 'test' });
}

async function exists(id: string): Promise<boolean> {
  try {
    await job(id).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

const ids = () => {
  const n = randomUUID().slice(0, 6);
  return { hook: `h${n}`, a: `ja-${n}`, b: `jb-${n}` };
};

test('the same delivery twice starts one job: the second answer is a duplicate naming the same job; a forgotten delivery still starts none', async () => {
  const { hook, a } = ids();
  await stack.worker.runUntil(async () => {
    expect(await deliver(hook, 'main', 'd-1', a, 'queue', 'hook-quick')).toEqual({ delivery_id: 'd-1', job_id: a, outcome: 'started' });
    expect(await deliver(hook, 'main', 'd-1', a, 'queue', 'hook-quick')).toEqual({ delivery_id: 'd-1', job_id: a, outcome: 'duplicate' });
    expect((await report(a)).status).toBe('succeeded');
    // Another coordinator (another key) never saw d-1, but its job id exists: no second job.
    expect(await deliver(hook, 'other', 'd-1', a, 'queue', 'hook-quick')).toEqual({ delivery_id: 'd-1', job_id: a, outcome: 'duplicate' });
    const view = await waitFor(() => dev.env.client.workflow.getHandle(hookCoordinatorId(hook, 'main')).query(hookCoordinatorViewQuery), (v) => v.running.length === 0);
    expect(view).toEqual({ running: [], queued: [], seen: 1 });
  });
}, 180_000);

test('queue: a second delivery of the key waits for the first job to end, then runs', async () => {
  const { hook, a, b } = ids();
  await stack.worker.runUntil(async () => {
    expect((await deliver(hook, 'main', 'd-a', a, 'queue', 'hook-slow')).outcome).toBe('started');
    expect(await deliver(hook, 'main', 'd-b', b, 'queue', 'hook-quick')).toEqual({ delivery_id: 'd-b', job_id: b, outcome: 'queued' });
    const coordinator = dev.env.client.workflow.getHandle(hookCoordinatorId(hook, 'main'));
    expect(await coordinator.query(hookCoordinatorViewQuery)).toEqual({ running: [a], queued: [b], seen: 2 });
    await release(a);
    const first = await report(a);
    expect(first.status).toBe('succeeded');
    // The coordinator hears of a's end after the test may have: b starts then.
    await waitFor(() => exists(b), (e) => e, 60_000);
    const second = await report(b);
    expect(second.status).toBe('succeeded');
    // b started only once a had ended.
    expect(Date.parse(second.started_at)).toBeGreaterThanOrEqual(Date.parse(first.finished_at));
  });
}, 180_000);

test('cancel: a second delivery of the key cancels the running job (reported cancelled) and runs', async () => {
  const { hook, a, b } = ids();
  await stack.worker.runUntil(async () => {
    expect((await deliver(hook, 'main', 'd-a', a, 'cancel', 'hook-slow')).outcome).toBe('started');
    await waitFor(() => job(a).query(jobProgressQuery), (p) => p.escalations.length > 0, 60_000);
    expect(await deliver(hook, 'main', 'd-b', b, 'cancel', 'hook-quick')).toEqual({ delivery_id: 'd-b', job_id: b, outcome: 'started' });
    expect((await report(a)).status).toBe('cancelled');
    expect((await report(b)).status).toBe('succeeded');
  });
}, 180_000);

test('ignore: a second delivery of the key while a job runs is recorded as ignored and starts nothing; another key is not affected', async () => {
  const { hook, a, b } = ids();
  const c = `jc-${hook}`;
  await stack.worker.runUntil(async () => {
    expect((await deliver(hook, 'main', 'd-a', a, 'ignore', 'hook-slow')).outcome).toBe('started');
    expect(await deliver(hook, 'main', 'd-b', b, 'ignore', 'hook-quick')).toEqual({ delivery_id: 'd-b', job_id: null, outcome: 'ignored' });
    expect(await deliver(hook, 'main', 'd-b', b, 'ignore', 'hook-quick')).toEqual({ delivery_id: 'd-b', job_id: null, outcome: 'duplicate' });
    expect((await deliver(hook, 'dev', 'd-c', c, 'ignore', 'hook-quick')).outcome).toBe('started');
    await release(a);
    expect((await report(a)).status).toBe('succeeded');
    expect((await report(c)).status).toBe('succeeded');
    expect(await exists(b)).toBe(false);
  });
}, 180_000);
