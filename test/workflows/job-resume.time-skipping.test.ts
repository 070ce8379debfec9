import '../harness/quiet-temporal';
import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import type { JobReport } from '../../contracts/job-report';
import type { JobSpecInput } from '../../contracts/job-spec';
import { escalationAnswerSignal, JOB_WORKFLOW_TYPE, jobProgressQuery, jobResumeSignal, jobWaitingReportQuery, jobWorkflowId, type JobWorkflowInput } from '../../contracts/job-workflow';
import { waitFor } from '../harness/dev-server-worker';
import { useJobStack } from './job-stack';

/**
 * Resuming a job that needs a person (docs/jobs.md, "Resuming a job that needs a person"), on the
 * time-skipping server: an escalation nobody answers with `on_timeout: abort` reports `needs_human`
 * (the waiting report answers its query) and waits; a resume decides the call and the work goes on
 * where it stopped, its deadline moved by the wait; without one, the job ends `needs_human` once
 * `resume_wait_s` is over.
 */
const jobs = useJobStack();

const SCRIPT = [
  [{ type: 'tool_call', name: 'write_file', args: { path: 'a.txt', content: 'a\n' } }],
  [{ type: 'tool_call', name: 'shell_exec', args: { command: 'echo b > b.txt' } }],
  [{ type: 'text', text: 'Wrote a.txt and b.txt.' }],
];

function start(spec: Omit<JobSpecInput, 'version'>) {
  const job_id = `j-${randomUUID().slice(0, 8)}`;
  const input: JobWorkflowInput = { job_id, spec: { version: 1, ...spec } };
  return jobs.env.client.workflow.start(JOB_WORKFLOW_TYPE, { taskQueue: jobs.stack.taskQueue, workflowId: jobWorkflowId(job_id), args: [input] });
}

async function replays(report: JobReport): Promise<void> {
  for (const workflowId of [jobWorkflowId(report.job_id), ...report.turns.map((t) => `session:${report.session_id}:turn:${t.turn_id.slice(1)}`)]) {
    await Worker.runReplayHistory({ workflowBundle: jobs.bundle }, await jobs.env.client.workflow.getHandle(workflowId).fetchHistory(), workflowId);
  }
}

const policy = (resume_wait_s: number) => ({ tools: { shell_exec: 'escalate' as const }, escalation: { timeout_s: 60, on_timeout: 'abort' as const, resume_wait_s } });

test('needs_human, then a person resumes it with allow and a message: the call runs, the model reads the message, the work goes on, and the report says who resumed it', async () => {
  // The scripted model answers by the assistant messages since the last user message: the resume's
  // message (steering, a user message) starts its script again, so its step 1 quotes that message.
  await jobs.stack.script('job-resume', [[{ type: 'tool_call', name: 'shell_exec', args: { command: 'echo b >> b.txt' } }], [{ type: 'text', text: '{{user}}' }]]);
  const report = await jobs.stack.worker.runUntil(async () => {
    const h = await start({ task: { prompt: 'write b', project_path: jobs.stack.repo, model: 'scripted/job-resume' }, policy: policy(6 * 3600), limits: { deadline_s: 1800, wrap_up_before_s: 300 } });
    await waitFor(() => h.query(jobProgressQuery), (p) => p.escalations.length > 0);
    // The escalation times out (60 s): the job reports needs_human and waits.
    await jobs.env.sleep(61_000);
    const waiting = await waitFor(() => h.query(jobProgressQuery), (p) => p.needs_human !== undefined);
    expect(waiting.needs_human).toMatchObject({ tool: 'shell_exec', reason: expect.stringMatching(/shell_exec call .* needs a person: nobody answered within 60 s$/) });
    expect(waiting.needs_human!.resume_by - waiting.needs_human!.since).toBe(6 * 3600_000);
    // The waiting report is there once what was done so far is collected.
    expect(await waitFor(() => h.query(jobWaitingReportQuery), (r) => r !== null)).toMatchObject({ status: 'needs_human', reason: waiting.needs_human!.reason, deliverable: { verified: true, files: [] } });
    // Two hours later (past the job's 30-minute deadline: the wait does not count), bob resumes it.
    await jobs.env.sleep(2 * 3600_000);
    expect((await h.query(jobProgressQuery)).needs_human).toBeDefined();
    await h.signal(jobResumeSignal, { decision: 'allow', by: 'bob', message: 'Fine, go ahead.' });
    // The model, told bob's message, calls again; alice allows that one as an ordinary escalation.
    const again = await waitFor(() => h.query(jobProgressQuery), (p) => p.escalations.some((e) => e.tool_call_id !== waiting.needs_human!.tool_call_id));
    expect(again.needs_human).toBeUndefined();
    await h.signal(escalationAnswerSignal, { tool_call_id: again.escalations.at(-1)!.tool_call_id, decision: 'allow', by: 'alice' });
    return (await h.result()) as JobReport;
  });
  expect(report).toMatchObject({
    status: 'succeeded',
    summary: 'bob allowed the shell_exec call and says: Fine, go ahead.',
    limits_hit: [],
    turns: [{ kind: 'work', turn_id: 't1', outcome: 'done' }],
    resumed: [{ by: 'bob', at: expect.any(String), tool: 'shell_exec', decision: 'allow', message: 'Fine, go ahead.' }],
    deliverable: { verified: true, files: [{ path: 'b.txt', added: 2, removed: 0 }] },
  });
  expect(report.tool_calls.map((c) => [c.tool, c.outcome, c.decided_by, c.answered_by ?? null])).toEqual([
    ['shell_exec', 'ran', 'person', 'bob'],
    ['shell_exec', 'ran', 'person', 'alice'],
  ]);
  expect(report.commands.map((c) => c.exit_code)).toEqual([0, 0]);
  // Resumed after the wait: later than the escalation's timeout plus the two hours.
  expect(Date.parse(report.resumed![0]!.at) - Date.parse(report.started_at)).toBeGreaterThanOrEqual(61_000 + 2 * 3600_000);
  await replays(report);
}, 300_000);

test('a resume that denies the call: the model reads the person’s message and the job goes on', async () => {
  await jobs.stack.script('job-resume-deny', [
    [{ type: 'tool_call', name: 'shell_exec', args: { command: 'rm -rf build' } }],
    [{ type: 'text', text: 'Left build alone.' }],
  ]);
  const report = await jobs.stack.worker.runUntil(async () => {
    const h = await start({ task: { prompt: 'clean', project_path: jobs.stack.repo, model: 'scripted/job-resume-deny' }, policy: policy(3600) });
    await waitFor(() => h.query(jobProgressQuery), (p) => p.escalations.length > 0);
    await jobs.env.sleep(61_000);
    await waitFor(() => h.query(jobProgressQuery), (p) => p.needs_human !== undefined);
    await h.signal(jobResumeSignal, { decision: 'deny', by: 'carol', message: 'Never delete build.' });
    return (await h.result()) as JobReport;
  });
  expect(report).toMatchObject({ status: 'succeeded', summary: 'Left build alone.', resumed: [{ by: 'carol', decision: 'deny', message: 'Never delete build.' }] });
  expect(report.tool_calls.map((c) => [c.outcome, c.decided_by, c.answered_by, c.reason])).toEqual([['denied', 'person', 'carol', 'resumed by carol after the job needed a person: Never delete build.']]);
  // Listed as the other refused calls are: it never ran to an exit.
  expect(report.commands.map((c) => [c.command, c.exit_code])).toEqual([['rm -rf build', null]]);
  await replays(report);
}, 300_000);

test('nobody resumes it within resume_wait_s: the job ends needs_human, the call denied and the turn aborted', async () => {
  await jobs.stack.script('job-no-resume', SCRIPT);
  const report = await jobs.stack.worker.runUntil(async () => (await start({ task: { prompt: 'write two files', project_path: jobs.stack.repo, model: 'scripted/job-no-resume' }, policy: policy(600) })).result() as Promise<JobReport>);
  expect(report).toMatchObject({
    status: 'needs_human',
    reason: expect.stringMatching(/shell_exec call .* needs a person: nobody answered within 60 s; nobody resumed it within 600 s$/),
    turns: [{ kind: 'work', outcome: 'aborted' }],
    deliverable: { verified: true, files: [{ path: 'a.txt', added: 1, removed: 0 }] },
  });
  expect(report.resumed).toBeUndefined();
  expect(report.tool_calls.map((c) => [c.tool, c.outcome, c.decided_by])).toEqual([
    ['write_file', 'ran', 'policy'],
    ['shell_exec', 'denied', 'timeout'],
  ]);
  expect(report.duration_ms).toBeGreaterThanOrEqual(660_000);
  await replays(report);
}, 300_000);
