import '../harness/quiet-temporal';
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { JobReport } from '../../contracts/job-report';
import { JOB_WORKFLOW_TYPE, jobProgressQuery, jobWorkflowId, type JobWorkflowInput } from '../../contracts/job-workflow';
import { DEFAULT_TASK_QUEUE } from '../../contracts/task-queues';
import { waitFor } from '../harness/dev-server-worker';
import { startJobE2eStack, type JobE2eStack } from '../harness/job-e2e-stack';
import type { TestStack } from '../harness/stack-fixture';

/**
 * A job survives its worker (docs/jobs.md, "Worker faults and several hosts"): on the whole local
 * stack, the worker is killed (-9) or stopped politely (SIGTERM) in the middle of the job's second
 * model step, after a shell command has run, then started again. The job resumes and succeeds; the
 * command ran once (it appends to a file outside the workspace), the deliverable has one commit.
 */
let js: JobE2eStack;
let stack: TestStack;
let client: Client;
let tmp: string;
let repo: string;
let scripts: string;

const LONG_ANSWER = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ');

beforeAll(async () => {
  js = await startJobE2eStack('job-faults', { STRAND_SCRIPTED_DELTA_DELAY_MS: '50' });
  ({ stack, tmp, repo, scripts } = js);
  client = await js.temporal();
}, 180_000);

afterAll(() => js?.teardown(), 60_000);

async function jobAcrossAWorkerFault(fault: (s: TestStack) => Promise<void>): Promise<{ report: JobReport; runs: string }> {
  const id = `f-${randomUUID().slice(0, 8)}`;
  const counter = path.join(tmp, `runs-${id}`);
  // Step 1 runs a command that counts its runs outside the workspace; step 2 streams slowly (50 ms a delta).
  await fs.writeFile(
    path.join(scripts, `${id}.json`),
    JSON.stringify({ steps: [[{ type: 'tool_call', name: 'shell_exec', args: { command: `echo ran >> ${counter}; echo hi > hi.txt` } }], [{ type: 'text', text: LONG_ANSWER }]] }),
  );
  const input: JobWorkflowInput = { job_id: id, spec: { version: 1, task: { prompt: 'write hi.txt', project_path: repo, model: `scripted/${id}` } } };
  const h = await client.workflow.start(JOB_WORKFLOW_TYPE, { taskQueue: DEFAULT_TASK_QUEUE, workflowId: jobWorkflowId(id), args: [input] });
  // The second model step is streaming: the command has run.
  await waitFor(() => h.query(jobProgressQuery), (p) => (p.step ?? 0) >= 1, 90_000);
  await new Promise((r) => setTimeout(r, 1_000));
  await fault(stack);
  await stack.restart('worker');
  const report = (await h.result()) as JobReport;
  const runs = await fs.readFile(counter, 'utf8').catch(() => '');
  return { report, runs };
}

function expectDoneOnce({ report, runs }: { report: JobReport; runs: string }): void {
  expect(report).toMatchObject({
    status: 'succeeded',
    summary: LONG_ANSWER,
    turns: [{ kind: 'work', turn_id: 't1', outcome: 'done' }],
    deliverable: { verified: true, files: [{ path: 'hi.txt', added: 1, removed: 0 }] },
  });
  // One commit, the command run once, one record of it.
  expect(report.deliverable!.commits).toHaveLength(1);
  expect(runs).toBe('ran\n');
  expect(report.commands.map((c) => c.exit_code)).toEqual([0]);
  expect(report.usage.steps).toBe(2);
}

/** How many model steps the job's turn scheduled (two steps, plus each retry of a step a fault cut). */
async function modelStepsScheduled(report: JobReport): Promise<number> {
  const history = await client.workflow.getHandle(`session:${report.session_id}:turn:1`).fetchHistory();
  return (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'streamModelStep').length;
}

test('kill -9 of the worker mid model-step: the job resumes on the restarted worker and succeeds, its work done once', async () => {
  const outcome = await jobAcrossAWorkerFault((s) => s.process('worker').kill());
  expectDoneOnce(outcome);
  // The kill did cut the second step: it was scheduled again.
  expect(await modelStepsScheduled(outcome.report)).toBeGreaterThanOrEqual(3);
}, 240_000);

test('a polite stop (SIGTERM) mid model-step: the same', async () => {
  expectDoneOnce(await jobAcrossAWorkerFault((s) => s.process('worker').stop()));
}, 240_000);
