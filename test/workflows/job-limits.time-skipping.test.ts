import '../harness/quiet-temporal';
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { JobReport } from '../../contracts/job-report';
import type { JobSpecInput } from '../../contracts/job-spec';
import { JOB_WORKFLOW_TYPE, jobWorkflowId, type JobWorkflowInput } from '../../contracts/job-workflow';
import { useJobStack } from './job-stack';

/**
 * A job's limits and the ways it ends other than success (docs/jobs.md), on the same parts as
 * job.time-skipping.test.ts: the budget's soft share then its cap, the step limit, an escalation
 * nobody answers with `on_timeout: abort`, a deadline without wrap-up time, a refused workspace.
 */
const jobs = useJobStack();

async function runJob(spec: Omit<JobSpecInput, 'version'>): Promise<JobReport> {
  const job_id = `j-${randomUUID().slice(0, 8)}`;
  const input: JobWorkflowInput = { job_id, spec: { version: 1, ...spec } };
  return jobs.stack.worker.runUntil(async () => (await jobs.env.client.workflow.start(JOB_WORKFLOW_TYPE, { taskQueue: jobs.stack.taskQueue, workflowId: jobWorkflowId(job_id), args: [input] })).result() as Promise<JobReport>);
}

const task = (model: string) => ({ prompt: `work (${model})`, project_path: jobs.stack.repo, model: `scripted/${model}` });

test('the budget: the soft share interrupts the work for a wrap-up, the cap stops the wrap-up; partial', async () => {
  await jobs.stack.script('job-budget', [
    [{ type: 'usage', input: 900, output: 0 }, { type: 'text', text: 'Step one.' }, { type: 'tool_call', name: 'shell_exec', args: { command: 'true' } }],
    [{ type: 'text', text: 'never reached: the budget stops both turns first' }],
  ]);
  const report = await runJob({ task: task('job-budget'), limits: { max_tokens: 1000, soft_share: 0.8 } });
  expect(report).toMatchObject({
    status: 'partial',
    limits_hit: ['budget_soft', 'budget'],
    turns: [
      { kind: 'work', turn_id: 't1', outcome: 'aborted', steps: 2 },
      { kind: 'wrap_up', turn_id: 't2', outcome: 'aborted', steps: 2 },
    ],
    usage: { tokens: 1800, steps: 2 },
    deliverable: { verified: true, files: [] },
  });
  expect(report.commands.map((c) => [c.command, c.exit_code])).toEqual([
    ['true', 0],
    ['true', 0],
  ]);
}, 120_000);

test('an escalation nobody answers with on_timeout abort stops the job: needs_human', async () => {
  await jobs.stack.script('job-human', [[{ type: 'tool_call', name: 'shell_exec', args: { command: 'echo risky' } }], [{ type: 'text', text: 'never reached' }]]);
  const report = await runJob({ task: task('job-human'), policy: { tools: { shell_exec: 'escalate' }, escalation: { timeout_s: 600, on_timeout: 'abort' } } });
  expect(report).toMatchObject({ status: 'needs_human', reason: expect.stringMatching(/shell_exec call .* needs a person: nobody answered within 600 s/), turns: [{ kind: 'work', outcome: 'aborted' }], limits_hit: [] });
  expect(report.tool_calls.map((c) => [c.tool, c.outcome, c.decided_by])).toEqual([['shell_exec', 'denied', 'timeout']]);
  expect(report.duration_ms).toBeGreaterThanOrEqual(600_000);
}, 120_000);

test('an escalation nobody answers with on_timeout skip: the call is not run, the work goes on and can succeed', async () => {
  await jobs.stack.script('job-skip', [[{ type: 'tool_call', name: 'shell_exec', args: { command: 'echo skipped > s.txt' } }], [{ type: 'text', text: 'Went on without it.' }]]);
  const report = await runJob({ task: task('job-skip'), policy: { tools: { shell_exec: 'escalate' }, escalation: { timeout_s: 300, on_timeout: 'skip' } } });
  expect(report).toMatchObject({ status: 'succeeded', summary: 'Went on without it.', turns: [{ kind: 'work', outcome: 'done', steps: 2 }], deliverable: { files: [] } });
  expect(report.tool_calls.map((c) => [c.outcome, c.decided_by, c.reason])).toEqual([['skipped', 'timeout', 'nobody answered within 300 s: skipped, go on without it']]);
}, 120_000);

test('a deadline with no wrap-up time (no soft deadline) aborts the running turn at once; partial', async () => {
  await jobs.stack.script('job-hard', [[{ type: 'text', text: 'Waiting for a person.' }, { type: 'tool_call', name: 'shell_exec', args: { command: 'echo hi' } }], [{ type: 'text', text: 'never reached' }]]);
  const report = await runJob({ task: task('job-hard'), policy: { tools: { shell_exec: 'escalate' } }, limits: { deadline_s: 900, wrap_up_before_s: 0 } });
  expect(report).toMatchObject({ status: 'partial', limits_hit: ['deadline_hard'], turns: [{ kind: 'work', turn_id: 't1', outcome: 'aborted' }] });
  expect(report.summary).toBe('Waiting for a person.');
  expect(report.duration_ms).toBeGreaterThanOrEqual(900_000);
}, 120_000);

test('a project that is no folder: the job fails without running a turn', async () => {
  const report = await runJob({ task: { ...task('echo'), project_path: '/nonexistent/project' } });
  expect(report).toMatchObject({ status: 'failed', reason: expect.stringContaining('/nonexistent/project is no folder'), workspace: null, deliverable: null, turns: [], tool_calls: [] });
}, 120_000);

/*
 * Last in this file on purpose (these two): a turn that ends at its step limit ends right after signalling its
 * parent a `thinking` report it does not wait for, and the time-skipping test server keeps time
 * locked for that signal after the turn has completed. Tests after it that need time to skip would
 * wait forever (seen while writing these); the ones before are unaffected.
 */
test('the step limit: the work turn gets the soft share of the steps, the wrap-up the rest; partial', async () => {
  // repeat_last_step: the model never stops calling tools.
  await fs.writeFile(path.join(jobs.stack.scriptsDir, 'job-steps.json'), JSON.stringify({ steps: [[{ type: 'tool_call', name: 'shell_exec', args: { command: 'echo step >> steps.txt' } }]], repeat_last_step: true }));
  const report = await runJob({ task: task('job-steps'), limits: { max_steps: 5, soft_share: 0.8 } });
  expect(report).toMatchObject({
    status: 'partial',
    limits_hit: ['steps_soft', 'steps'],
    turns: [
      { kind: 'work', turn_id: 't1', outcome: 'done', steps: 4 },
      { kind: 'wrap_up', turn_id: 't2', outcome: 'done', steps: 1 },
    ],
    usage: { steps: 5 },
    deliverable: { verified: true, files: [{ path: 'steps.txt', added: 5, removed: 0 }] },
  });
}, 120_000);

test('a step limit that leaves no step for a wrap-up stops the job after the work turn; partial', async () => {
  await fs.writeFile(path.join(jobs.stack.scriptsDir, 'job-one-step.json'), JSON.stringify({ steps: [[{ type: 'tool_call', name: 'shell_exec', args: { command: 'true' } }]], repeat_last_step: true }));
  const report = await runJob({ task: task('job-one-step'), limits: { max_steps: 1 } });
  expect(report).toMatchObject({ status: 'partial', limits_hit: ['steps_soft', 'steps'], turns: [{ kind: 'work', turn_id: 't1', outcome: 'done', steps: 1 }], usage: { steps: 1 } });
}, 120_000);
