import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gitOk } from '../../activities/job-workspace/git';
import { jobReportSchema } from '../../contracts/job-report';
import { startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * Resuming a job that needs a person over HTTP (docs/jobs.md, "Resuming a job that needs a person"),
 * on a real stack with tokens: an escalated call nobody answers within a second (`on_timeout:
 * abort`) makes the job report `needs_human` (GET /api/jobs/{id} and its report say so) and wait;
 * another principal cannot resume it; its owner's `POST …/resume` allows the call, the command runs,
 * the job succeeds and its report names who resumed it. An ended job answers 409 JOB_NOT_WAITING; a
 * prompt into the job's session is refused (409 JOB_SESSION).
 */
const ALICE = 'tok-alice';
const BOB = 'tok-bob';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-job-resume-'));
const scripts = path.join(tmp, 'scripts');
const repo = path.join(tmp, 'repo');
let stack: TestStack;

beforeAll(async () => {
  fs.mkdirSync(scripts);
  fs.mkdirSync(repo);
  await gitOk(repo, ['init', '--quiet', '--initial-branch', 'main']);
  fs.writeFileSync(path.join(repo, 'README.md'), '# demo\n');
  await gitOk(repo, ['add', '-A']);
  await gitOk(repo, ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '--quiet', '-m', 'first']);
  fs.writeFileSync(path.join(scripts, 'job-resume.json'), JSON.stringify({ steps: [[{ type: 'tool_call', name: 'shell_exec', args: { command: 'echo yes > approved.txt' } }], [{ type: 'text', text: 'Approved and done.' }]] }));
  stack = await startTestStack({ STRAND_TOKENS: `${ALICE}:alice,${BOB}:bob`, STRAND_SCRIPTS_DIR: scripts, STRAND_JOBS_DIR: path.join(tmp, 'jobs') });
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
  fs.rmSync(tmp, { recursive: true, force: true });
}, 60_000);

async function as(token: string, method: string, route: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${stack.urls.gateway}${route}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: await res.json() };
}

async function untilStatus(id: string, status: string): Promise<any> {
  for (let i = 0; i < 600; i++) {
    const view = (await as(ALICE, 'GET', `/api/jobs/${id}`)).body;
    if (view.status === status) return view;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`job ${id} never reached ${status}`);
}

test('a job that needs a person is resumed over HTTP by its owner: the call runs and the report names who resumed it', async () => {
  const id = 'resume-1';
  const spec = { version: 1, job_id: id, task: { prompt: 'approve', project_path: repo, model: 'scripted/job-resume' }, policy: { tools: { shell_exec: 'escalate' }, escalation: { timeout_s: 1, on_timeout: 'abort', resume_wait_s: 600 } } };
  expect((await as(ALICE, 'POST', '/api/jobs', spec)).status).toBe(202);
  const waiting = await untilStatus(id, 'needs_human');
  expect(waiting.progress.needs_human).toMatchObject({ tool: 'shell_exec', reason: expect.stringMatching(/needs a person: nobody answered within 1 s$/) });
  expect(waiting.progress.needs_human.resume_by - waiting.progress.needs_human.since).toBe(600_000);
  expect(waiting.report).toMatchObject({ status: 'needs_human', deliverable: { verified: true } });
  // The list reads visibility alone: a job waiting for a person is listed under needs_human.
  const listed = (await as(ALICE, 'GET', '/api/jobs?status=needs_human')).body.jobs;
  expect(listed.map((j: { job_id: string; status: string }) => [j.job_id, j.status])).toEqual([[id, 'needs_human']]);
  const report = await as(ALICE, 'GET', `/api/jobs/${id}/report`);
  expect(report).toMatchObject({ status: 200, body: { status: 'needs_human' } });
  // Another principal's job is no job to them.
  expect((await as(BOB, 'POST', `/api/jobs/${id}/resume`, { decision: 'allow' })).body.error.code).toBe('JOB_NOT_FOUND');
  expect((await as(ALICE, 'POST', `/api/jobs/${id}/resume`, { decision: 'maybe' })).status).toBe(400);
  // No message: the scripted model would take one (a user message) as a new prompt and start its script again.
  const resumed = await as(ALICE, 'POST', `/api/jobs/${id}/resume`, { decision: 'allow' });
  expect(resumed).toEqual({ status: 200, body: { job_id: id, tool_call_id: waiting.progress.needs_human.tool_call_id, decision: 'allow', by: 'alice' } });
  const done = await untilStatus(id, 'succeeded');
  const final = jobReportSchema.parse(done.report);
  expect(final.resumed).toEqual([{ by: 'alice', at: expect.any(String), tool_call_id: waiting.progress.needs_human.tool_call_id, tool: 'shell_exec', decision: 'allow' }]);
  expect(final.tool_calls.map((c) => [c.tool, c.outcome, c.decided_by, c.answered_by])).toEqual([['shell_exec', 'ran', 'person', 'alice']]);
  expect(final.commands.map((c) => c.exit_code)).toEqual([0]);
  expect(await gitOk(repo, ['show', `strand/job-${id}:approved.txt`])).toBe('yes\n');
  // A client's prompt into the job's session would start a second owner of its turns: refused, naming the job.
  const prompted = await as(ALICE, 'POST', `/api/sessions/job-${id}/prompt`, { text: 'and one more thing' });
  expect(prompted).toMatchObject({ status: 409, body: { error: { code: 'JOB_SESSION', message: expect.stringContaining(`belongs to job ${id}`), details: { job_id: id } } } });
  expect(prompted.body.error.message).toContain(`POST /api/jobs/${id}/cancel`);
  expect((await as(ALICE, 'GET', '/api/jobs?status=succeeded')).body.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([id]);
  expect((await as(ALICE, 'GET', '/api/jobs?status=needs_human')).body.jobs).toEqual([]);
  // Ended: nothing to resume.
  expect(await as(ALICE, 'POST', `/api/jobs/${id}/resume`, { decision: 'allow' })).toMatchObject({ status: 409, body: { error: { code: 'JOB_NOT_WAITING' } } });
}, 300_000);
