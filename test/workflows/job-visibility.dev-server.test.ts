import '../harness/quiet-temporal';
import { randomUUID } from 'node:crypto';
import type { JobReport } from '../../contracts/job-report';
import { searchAttributeKeys } from '../../contracts/search-attributes';
import { escalationAnswerSignal, JOB_WORKFLOW_TYPE, jobProgressQuery, jobWorkflowId, type JobWorkflowInput } from '../../contracts/job-workflow';
import { devServerWorkers, waitFor } from '../harness/dev-server-worker';
import { jobStack, type JobStack } from './job-stack';

/**
 * Finding jobs (docs/jobs.md): on a dev server that registers strand's search attributes, as
 * `strand up`'s does, a job upserts `StrandJobStatus` (running, then the report's status),
 * `StrandJobProject` and `StrandJobSchedule`, and a visibility query finds it by them.
 */
const server = devServerWorkers({ searchAttributes: [searchAttributeKeys.jobStatus, searchAttributeKeys.jobProject, searchAttributeKeys.jobSchedule] });
let stack: JobStack;
beforeEach(async () => {
  stack = await jobStack(server.env, server.bundle, `tq-${randomUUID()}`);
}, 60_000);
afterEach(async () => {
  await stack?.cleanup();
}, 60_000);

async function ids(query: string): Promise<string[]> {
  const found: string[] = [];
  for await (const w of server.env.client.workflow.list({ query })) found.push(w.workflowId);
  return found;
}

test('a job is found running by its project and schedule, then by StrandJobStatus = succeeded once it has finished', async () => {
  await stack.script('visible', [[{ type: 'tool_call', name: 'shell_exec', args: { command: 'echo hi > hi.txt' } }], [{ type: 'text', text: 'Done.' }]]);
  const id = `v-${randomUUID().slice(0, 8)}`;
  const schedule = `sched-${randomUUID().slice(0, 8)}`;
  const input: JobWorkflowInput = { job_id: id, schedule_id: schedule, spec: { version: 1, task: { prompt: 'say hi', project_path: stack.repo, model: 'scripted/visible' }, policy: { tools: { shell_exec: 'escalate' } } } };
  const report = await stack.worker.runUntil(async () => {
    const h = await server.env.client.workflow.start(JOB_WORKFLOW_TYPE, { taskQueue: stack.taskQueue, workflowId: jobWorkflowId(id), args: [input] });
    // Held by its escalation: running, under its project and schedule.
    const waiting = await waitFor(() => h.query(jobProgressQuery), (p) => p.escalations.length > 0, 60_000);
    const running = `StrandJobStatus = 'running' AND StrandJobProject = '${stack.repo}' AND StrandJobSchedule = '${schedule}'`;
    expect(await waitFor(() => ids(running), (found) => found.length > 0, 30_000)).toEqual([jobWorkflowId(id)]);
    await h.signal(escalationAnswerSignal, { tool_call_id: waiting.escalations[0]!.tool_call_id, decision: 'allow', by: 'carol' });
    return (await h.result()) as JobReport;
  });
  expect(report.status).toBe('succeeded');
  expect(await waitFor(() => ids(`WorkflowType = 'jobWorkflow' AND StrandJobStatus = 'succeeded' AND StrandJobProject = '${stack.repo}'`), (found) => found.length > 0, 30_000)).toEqual([jobWorkflowId(id)]);
  expect(await ids(`StrandJobStatus = 'running' AND StrandJobSchedule = '${schedule}'`)).toEqual([]);
  const described = await server.env.client.workflow.getHandle(jobWorkflowId(id)).describe();
  expect(described.typedSearchAttributes.get(searchAttributeKeys.jobSchedule)).toBe(schedule);
}, 180_000);
