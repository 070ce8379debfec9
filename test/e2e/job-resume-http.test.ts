import { gitOk } from '../../activities/job-workspace/git';
import { jobReportSchema } from '../../contracts/job-report';
import { startJobE2eStack, type JobE2eStack } from '../harness/job-e2e-stack';

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
let js: JobE2eStack;

beforeAll(async () => {
  js = await startJobE2eStack('strand-job-resume', { STRAND_TOKENS: `${ALICE}:alice,${BOB}:bob` });
  js.script('job-resume', [[{ type: 'tool_call', name: 'shell_exec', args: { command: 'echo yes > approved.txt' } }], [{ type: 'text', text: 'Approved and done.' }]]);
}, 180_000);

afterAll(() => js?.teardown(), 60_000);

const as = async (token: string, method: string, route: string, body?: unknown) => {
  const { status, body: answer } = await js.as(token, method, route, body);
  return { status, body: answer };
};
const untilStatus = (id: string, status: string) => js.jobUntil(ALICE, id, (view) => view.status === status, 120_000);

test('a job that needs a person is resumed over HTTP by its owner: the call runs and the report names who resumed it', async () => {
  const id = 'resume-1';
  const spec = { version: 1, job_id: id, task: { prompt: 'approve', project_path: js.repo, model: 'scripted/job-resume' }, policy: { tools: { shell_exec: 'escalate' }, escalation: { timeout_s: 1, on_timeout: 'abort', resume_wait_s: 600 } } };
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
  expect(await gitOk(js.repo, ['show', `strand/job-${id}:approved.txt`])).toBe('yes\n');
  // A client's prompt into the job's session would start a second owner of its turns: refused, naming the job.
  const prompted = await as(ALICE, 'POST', `/api/sessions/job-${id}/prompt`, { text: 'and one more thing' });
  expect(prompted).toMatchObject({ status: 409, body: { error: { code: 'JOB_SESSION', message: expect.stringContaining(`belongs to job ${id}`), details: { job_id: id } } } });
  expect(prompted.body.error.message).toContain(`POST /api/jobs/${id}/cancel`);
  expect((await as(ALICE, 'GET', '/api/jobs?status=succeeded')).body.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([id]);
  expect((await as(ALICE, 'GET', '/api/jobs?status=needs_human')).body.jobs).toEqual([]);
  // Ended: nothing to resume.
  expect(await as(ALICE, 'POST', `/api/jobs/${id}/resume`, { decision: 'allow' })).toMatchObject({ status: 409, body: { error: { code: 'JOB_NOT_WAITING' } } });
}, 300_000);
