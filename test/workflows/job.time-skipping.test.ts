import '../harness/quiet-temporal';
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import { gitOk } from '../../activities/job-workspace/git';
import type { JobReport } from '../../contracts/job-report';
import type { JobSpecInput } from '../../contracts/job-spec';
import { escalationAnswerSignal, JOB_WORKFLOW_TYPE, jobProgressQuery, jobWorkflowId, type JobProgressView, type JobWorkflowInput } from '../../contracts/job-workflow';
import { waitFor } from '../harness/dev-server-worker';
import { useJobStack } from './job-stack';

/**
 * Unattended jobs end to end in one process (docs/jobs.md), on the time-skipping test server: the
 * job workflow, the real turn workflow under it, the scripted model issuing tool calls, the real
 * tools editing a git worktree and running commands, the real workspace and deliverable activities.
 * Deadlines and escalation timeouts are durable timers, which the server skips to.
 */
const jobs = useJobStack();

const jobId = () => `j-${randomUUID().slice(0, 8)}`;

function start(job_id: string, spec: Omit<JobSpecInput, 'version'>) {
  const input: JobWorkflowInput = { job_id, spec: { version: 1, ...spec } };
  return jobs.env.client.workflow.start(JOB_WORKFLOW_TYPE, { taskQueue: jobs.stack.taskQueue, workflowId: jobWorkflowId(job_id), args: [input] });
}

/** The job's history and its turns' replay on the workflow code as it is: nothing in them depends on more than their history. */
async function replays(report: JobReport): Promise<void> {
  for (const workflowId of [jobWorkflowId(report.job_id), ...report.turns.map((t) => `session:${report.session_id}:turn:${t.turn_id.slice(1)}`)]) {
    await Worker.runReplayHistory({ workflowBundle: jobs.bundle }, await jobs.env.client.workflow.getHandle(workflowId).fetchHistory(), workflowId);
  }
}

const progress = (h: Awaited<ReturnType<typeof start>>) => h.query(jobProgressQuery);
const escalated = (p: JobProgressView) => p.escalations.length > 0;

test('a job whose model writes a file and runs commands succeeds with a report naming the commit, the file, its lines and each exit code', async () => {
  await jobs.stack.script('job-ok', [
    [{ type: 'text', text: 'Writing the file.' }, { type: 'tool_call', name: 'write_file', args: { path: 'hello.txt', content: 'hello\nworld\n' } }],
    [{ type: 'tool_call', name: 'shell_exec', args: { command: 'wc -l < hello.txt' } }],
    [{ type: 'tool_call', name: 'shell_exec', args: { command: 'test -f missing.txt' } }],
    [{ type: 'text', text: 'Added hello.txt with two lines.' }],
  ]);
  const id = jobId();
  const report = await jobs.stack.worker.runUntil(async () => (await start(id, { task: { prompt: 'add hello.txt', project_path: jobs.stack.repo, model: 'scripted/job-ok' } })).result() as Promise<JobReport>);
  expect(report).toMatchObject({
    version: 1,
    job_id: id,
    status: 'succeeded',
    summary: 'Added hello.txt with two lines.',
    session_id: `job-${id}`,
    workspace: { kind: 'git_worktree', branch: `strand/job-${id}`, path: path.join(jobs.stack.jobsDir, id, 'workspace') },
    deliverable: {
      branch: `strand/job-${id}`,
      commits: [{ subject: `strand job ${id}: work the agent left uncommitted` }],
      files: [{ path: 'hello.txt', added: 2, removed: 0 }],
      patch_path: path.join(jobs.stack.jobsDir, id, 'job.patch'),
      verified: true,
      problems: [],
    },
    turns: [{ kind: 'work', turn_id: 't1', outcome: 'done', steps: 4 }],
    limits_hit: [],
  });
  expect(report.commands.map(({ command, exit_code }) => ({ command, exit_code }))).toEqual([
    { command: 'wc -l < hello.txt', exit_code: 0 },
    { command: 'test -f missing.txt', exit_code: 1 },
  ]);
  expect(report.tool_calls.map((c) => [c.tool, c.turn, c.rule, c.rule_source, c.outcome, c.decided_by])).toEqual([
    ['write_file', 't1', 'allow', 'default', 'ran', 'policy'],
    ['shell_exec', 't1', 'allow', 'default', 'ran', 'policy'],
    ['shell_exec', 't1', 'allow', 'default', 'ran', 'policy'],
  ]);
  expect(report.usage.steps).toBe(4);
  expect(report.usage.tokens).toBeGreaterThan(0);
  // The commit is on the job's branch in the project's repository; the project's checkout is untouched.
  const sha = report.deliverable!.commits[0]!.sha;
  expect((await gitOk(jobs.stack.repo, ['rev-parse', `strand/job-${id}`])).trim()).toBe(sha);
  expect(await gitOk(jobs.stack.repo, ['show', `${sha}:hello.txt`])).toBe('hello\nworld\n');
  expect((await gitOk(jobs.stack.repo, ['status', '--porcelain'])).trim()).toBe('');
  expect(await fs.readFile(report.deliverable!.patch_path!, 'utf8')).toContain('+world');
  await replays(report);
}, 120_000);

test('an escalated call runs on a person’s yes and the report names them; a denied tool never runs', async () => {
  await jobs.stack.script('job-escalate', [
    [{ type: 'tool_call', name: 'shell_exec', args: { command: 'echo yes > approved.txt' } }],
    [{ type: 'tool_call', name: 'delete_file', args: { path: 'README.md' } }],
    [{ type: 'text', text: 'Done; README.md could not be deleted.' }],
  ]);
  const id = jobId();
  const report = await jobs.stack.worker.runUntil(async () => {
    const h = await start(id, { task: { prompt: 'tidy up', project_path: jobs.stack.repo, model: 'scripted/job-escalate' }, policy: { tools: { shell_exec: 'escalate', delete_file: 'deny' } } });
    const waiting = await waitFor(() => progress(h), escalated);
    expect(waiting.escalations).toEqual([{ tool_call_id: expect.any(String), tool: 'shell_exec', turn_id: 't1', rule_source: 'tools.shell_exec', expires_at: expect.any(Number) }]);
    await h.signal(escalationAnswerSignal, { tool_call_id: waiting.escalations[0]!.tool_call_id, decision: 'allow', by: 'alice' });
    return (await h.result()) as JobReport;
  });
  expect(report.status).toBe('succeeded');
  expect(report.tool_calls.map((c) => [c.tool, c.rule_source, c.outcome, c.decided_by, c.answered_by ?? null])).toEqual([
    ['shell_exec', 'tools.shell_exec', 'ran', 'person', 'alice'],
    ['delete_file', 'tools.delete_file', 'denied', 'policy', null],
  ]);
  expect(report.commands.map((c) => [c.command, c.exit_code])).toEqual([['echo yes > approved.txt', 0]]);
  expect(report.deliverable!.files).toEqual([{ path: 'approved.txt', added: 1, removed: 0 }]);
  expect(await gitOk(jobs.stack.repo, ['show', `strand/job-${id}:README.md`])).toBe('# demo\n');
  // On the session's stream, as a session workflow's turn: the state it enters first, the calls
  // asking announced (by the job, which the turn waited for: the escalated one, the denied one),
  // `turn.finished`, then idle.
  const stream = jobs.stack.events.map((e) => e.event);
  const marks = stream.map((e) => (e.type === 'session.state' ? `state:${e.phase}:${e.turn_id ?? '-'}` : e.type === 'turn.finished' ? `finished:${e.turn_id}:${e.outcome}` : 'event'));
  expect(marks[0]).toBe('state:thinking:t1');
  expect(marks.slice(-2)).toEqual(['finished:t1:done', 'state:idle:-']);
  expect(marks.filter((m) => m !== 'event' && !m.startsWith('state:thinking') && !m.startsWith('state:streaming') && !m.startsWith('state:tool_execution'))).toEqual(['state:waiting_approval:t1', 'state:waiting_approval:t1', 'finished:t1:done', 'state:idle:-']);
  expect(marks.filter((m) => m === 'event').length).toBeGreaterThan(0);
  await replays(report);
}, 120_000);

test('the deadline: at its soft threshold the work stops after its step, a wrap-up turn runs, and the job ends partial', async () => {
  await jobs.stack.script('job-deadline', [
    [{ type: 'text', text: 'Running the slow suite.' }, { type: 'tool_call', name: 'shell_exec', args: { command: 'echo suite > ran.txt' } }],
    [{ type: 'text', text: 'Left to do: the suite never ran; nothing was changed.' }],
  ]);
  const id = jobId();
  // Nobody answers the escalation (its timeout is an hour): the server skips to the wrap-up time.
  const report = await jobs.stack.worker.runUntil(async () =>
    (await start(id, { task: { prompt: 'run the suite', project_path: jobs.stack.repo, model: 'scripted/job-deadline' }, policy: { tools: { shell_exec: 'escalate' } }, limits: { deadline_s: 1800, wrap_up_before_s: 300 } })).result() as Promise<JobReport>,
  );
  expect(report).toMatchObject({
    status: 'partial',
    reason: 'limits reached: deadline_soft',
    summary: 'Left to do: the suite never ran; nothing was changed.',
    limits_hit: ['deadline_soft'],
    turns: [
      { kind: 'work', turn_id: 't1', outcome: 'done', steps: 1 },
      { kind: 'wrap_up', turn_id: 't2', outcome: 'done', steps: 2 },
    ],
    deliverable: { files: [], commits: [], verified: true },
  });
  // The waiting call was answered by the job as it wrapped up; the wrap-up's own call was not waited for.
  expect(report.tool_calls.map((c) => [c.turn, c.outcome, c.decided_by, c.reason])).toEqual([
    ['t1', 'denied', 'job', 'the job is wrapping up (deadline_soft)'],
    ['t2', 'denied', 'job', 'the job is wrapping up: escalated calls are not waited for'],
  ]);
  expect(report.commands.map((c) => c.exit_code)).toEqual([null, null]);
  // The job's clock: the wrap-up began 25 minutes in.
  expect(report.duration_ms).toBeGreaterThanOrEqual(1500_000);
  expect(report.duration_ms).toBeLessThan(1800_000);
  await replays(report);
}, 120_000);

test('cancelling a job stops its running turn and reports cancelled with what was done', async () => {
  await jobs.stack.script('job-cancel', [
    [{ type: 'tool_call', name: 'write_file', args: { path: 'notes.txt', content: 'a start\n' } }],
    [{ type: 'tool_call', name: 'shell_exec', args: { command: 'echo more >> notes.txt' } }],
    [{ type: 'text', text: 'never reached' }],
  ]);
  const id = jobId();
  const report = await jobs.stack.worker.runUntil(async () => {
    const h = await start(id, { task: { prompt: 'take notes', project_path: jobs.stack.repo, model: 'scripted/job-cancel' }, policy: { tools: { shell_exec: 'escalate' } } });
    await waitFor(() => progress(h), escalated);
    await h.cancel();
    const report = (await h.result()) as JobReport;
    // Nothing waits any more once the job is done.
    expect(await progress(h)).toMatchObject({ phase: 'done', turn_id: null, escalations: [] });
    return report;
  });
  expect(report).toMatchObject({
    status: 'cancelled',
    reason: 'the job was cancelled',
    turns: [{ kind: 'work', turn_id: 't1', outcome: 'aborted', steps: 2 }],
    deliverable: { files: [{ path: 'notes.txt', added: 1, removed: 0 }], verified: true },
  });
  expect(report.tool_calls.map((c) => [c.tool, c.outcome])).toEqual([
    ['write_file', 'ran'],
    ['shell_exec', 'denied'],
  ]);
  expect(await gitOk(jobs.stack.repo, ['show', `strand/job-${id}:notes.txt`])).toBe('a start\n');
  await replays(report);
}, 120_000);
