import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { gitOk } from '../../activities/job-workspace/git';
import { jobReportSchema } from '../../contracts/job-report';
import { openSse, readUntil } from '../harness/sse-client';
import { startJobE2eStack, type JobE2eStack } from '../harness/job-e2e-stack';

/**
 * Unattended jobs through the gateway (docs/jobs.md, "Starting and watching a job") on a real stack
 * with tokens: the scripted model writes a file and runs a command in a job's worktree of a real git
 * repository. Started with an Idempotency-Key (twice: one job), listed, its session followed over SSE
 * by its owner only, its report read as JSON and markdown; a job cancelled through the route reports
 * `cancelled`; an escalated call answered through the route runs and the report names the answerer;
 * another principal sees none of it. And `strand job run --wait` does the same from the command line.
 */
const ALICE = 'tok-alice';
const BOB = 'tok-bob';
let js: JobE2eStack;
let base: string;

beforeAll(async () => {
  js = await startJobE2eStack('strand-jobs-http', { STRAND_TOKENS: `${ALICE}:alice,${BOB}:bob` });
  js.script('job-ok', [
    [{ type: 'text', text: 'Writing the file.' }, { type: 'tool_call', name: 'write_file', args: { path: 'hello.txt', content: 'hello\nworld\n' } }],
    [{ type: 'tool_call', name: 'shell_exec', args: { command: 'wc -l < hello.txt' } }],
    [{ type: 'text', text: 'Added hello.txt with two lines.' }],
  ]);
  js.script('job-slow', [[{ type: 'text', text: 'Thinking hard.' }, { type: 'stall' }]]);
  js.script('job-escalate', [[{ type: 'tool_call', name: 'shell_exec', args: { command: 'echo yes > approved.txt' } }], [{ type: 'text', text: 'Approved and done.' }]]);
  base = js.stack.urls.gateway;
}, 180_000);

afterAll(() => js?.teardown(), 60_000);

const as: JobE2eStack['as'] = (...args) => js.as(...args);

const spec: JobE2eStack['spec'] = (model, extra) => js.spec(model, extra);

/** Polls the job until `done` holds (a running job shows its progress; the test gives up after a minute). */
const jobUntil = (token: string, id: string, done: (view: any) => boolean) => js.jobUntil(token, id, done, 60_000);

test('a job started twice with one Idempotency-Key runs once, is listed, followed by its owner and reports its branch, file, command and exit code', async () => {
  const key = `key-${Date.now()}`;
  const first = await as(ALICE, 'POST', '/api/jobs', spec('job-ok'), { 'Idempotency-Key': key });
  expect(first.status).toBe(202);
  const id = first.body.job_id as string;
  expect(first.body).toEqual({ job_id: id, session_id: `job-${id}`, status_url: `/api/jobs/${id}`, report_url: `/api/jobs/${id}/report` });
  // The same key and spec: the same job, 200. The same key with another spec: 409.
  const again = await as(ALICE, 'POST', '/api/jobs', spec('job-ok'), { 'Idempotency-Key': key });
  expect([again.status, again.body.job_id]).toEqual([200, id]);
  const other = await as(ALICE, 'POST', '/api/jobs', spec('job-slow'), { 'Idempotency-Key': key });
  expect([other.status, other.body.error.code]).toEqual([409, 'JOB_EXISTS']);

  // Listed for Alice (newest first), not for Bob, who cannot see it either.
  expect((await as(ALICE, 'GET', '/api/jobs')).body.jobs.map((j: any) => j.job_id)).toContain(id);
  expect((await as(BOB, 'GET', '/api/jobs')).body.jobs.map((j: any) => j.job_id)).not.toContain(id);
  for (const route of [`/api/jobs/${id}`, `/api/jobs/${id}/report`]) expect((await as(BOB, 'GET', route)).body.error.code).toBe('JOB_NOT_FOUND');
  expect((await as(BOB, 'POST', `/api/jobs/${id}/cancel`)).body.error.code).toBe('JOB_NOT_FOUND');

  // Its session is Alice's: she follows its events from the start; Bob's stream is refused.
  await jobUntil(ALICE, id, (v) => v.status !== 'running' || v.progress?.phase !== 'preparing');
  const sse = await openSse(`${base}/api/sessions/job-${id}/events?after=0`, { headers: { Authorization: `Bearer ${ALICE}` } });
  try {
    expect(sse.status).toBe(200);
    // The job's work as it happened: the file written, the command run, the final answer streamed.
    // (Whether the job has ended is its status: a `turn.finished` on the stream ends a turn, not the job.)
    const seen = await readUntil(sse, (e) => e.data.includes('two lines.'), 60_000);
    expect(seen.filter((e) => e.event === 'tool.call').map((e) => JSON.parse(e.data).tool_name ?? JSON.parse(e.data).name)).toHaveLength(2);
    expect(seen.filter((e) => e.event === 'tool.result')).toHaveLength(2);
  } finally {
    sse.close();
  }
  const bobs = await openSse(`${base}/api/sessions/job-${id}/events?after=0`, { headers: { Authorization: `Bearer ${BOB}` } });
  expect(bobs.status).toBe(404);
  bobs.close();

  const ended = await jobUntil(ALICE, id, (v) => v.status !== 'running');
  expect(ended).toMatchObject({ job_id: id, status: 'succeeded', owner: 'alice', title: 'run job-ok', project_path: js.repo, model: 'scripted/job-ok', progress: null });
  const report = jobReportSchema.parse((await as(ALICE, 'GET', `/api/jobs/${id}/report`)).body);
  expect(ended.report).toEqual(report);
  expect(report).toMatchObject({
    status: 'succeeded',
    summary: 'Added hello.txt with two lines.',
    deliverable: { branch: `strand/job-${id}`, files: [{ path: 'hello.txt', added: 2, removed: 0 }], verified: true },
  });
  expect(report.commands.map((c) => [c.command, c.exit_code])).toEqual([['wc -l < hello.txt', 0]]);
  expect(await gitOk(js.repo, ['show', `strand/job-${id}:hello.txt`])).toBe('hello\nworld\n');

  // The same report as a document, by Accept or by ?format=.
  const byAccept = await as(ALICE, 'GET', `/api/jobs/${id}/report`, undefined, { Accept: 'text/markdown' });
  const byQuery = await as(ALICE, 'GET', `/api/jobs/${id}/report?format=markdown`);
  expect(byAccept.headers.get('content-type')).toMatch(/^text\/markdown/);
  expect(byQuery.body).toBe(byAccept.body);
  for (const line of [`# Job ${id}: succeeded`, `- Branch: \`strand/job-${id}\``, '| `hello.txt` | +2 | -0 |', '| `wc -l < hello.txt` | 0 |', '| `shell_exec` | t1 | allow (`default`) | ran | policy |  |']) {
    expect(byQuery.body).toContain(line);
  }
  expect((await as(ALICE, 'GET', '/api/jobs?status=succeeded')).body.jobs.map((j: any) => j.job_id)).toContain(id);
  expect((await as(ALICE, 'GET', '/api/jobs?status=running')).body.jobs.map((j: any) => j.job_id)).not.toContain(id);
  // Ended: a cancel has nothing to stop.
  expect((await as(ALICE, 'POST', `/api/jobs/${id}/cancel`)).body).toEqual({ job_id: id, status: 'not_running' });
}, 150_000);

test('a spec with a misspelt key is refused naming where it is; nothing starts', async () => {
  const bad = await as(ALICE, 'POST', '/api/jobs', { ...spec('job-ok'), job_id: 'never-started', limits: { max_stpes: 3 } });
  expect([bad.status, bad.body.error.code, bad.body.error.message]).toEqual([400, 'INVALID_REQUEST', 'limits.max_stpes: unrecognized key']);
  expect((await as(ALICE, 'GET', '/api/jobs/never-started')).body.error.code).toBe('JOB_NOT_FOUND');
});

test('a job cancelled through the route stops its turn and reports cancelled; its report is refused while it runs', async () => {
  const started = await as(ALICE, 'POST', '/api/jobs', { ...spec('job-slow'), job_id: `slow-${Date.now()}` });
  expect(started.status).toBe(202);
  const id = started.body.job_id as string;
  const working = await jobUntil(ALICE, id, (v) => v.progress?.phase === 'working' && v.progress.steps >= 0 && v.progress.turn_id === 't1');
  expect(working).toMatchObject({ status: 'running', report: null, closed_at: null });
  expect((await as(ALICE, 'GET', '/api/jobs?status=running')).body.jobs.map((j: any) => j.job_id)).toContain(id);
  const early = await as(ALICE, 'GET', `/api/jobs/${id}/report`);
  expect([early.status, early.body.error.code]).toEqual([409, 'JOB_NOT_FINISHED']);
  expect((await as(ALICE, 'POST', `/api/jobs/${id}/cancel`)).body).toEqual({ job_id: id, status: 'cancel_requested' });
  const ended = await jobUntil(ALICE, id, (v) => v.status !== 'running');
  expect(ended.status).toBe('cancelled');
  expect(ended.report).toMatchObject({ status: 'cancelled', turns: [{ kind: 'work', outcome: 'aborted' }] });
}, 120_000);

test('an escalated call waits for a person: answered through the route it runs, and the report names who allowed it', async () => {
  const started = await as(ALICE, 'POST', '/api/jobs', { ...spec('job-escalate', { policy: { tools: { shell_exec: 'escalate' } } }), job_id: `esc-${Date.now()}` });
  const id = started.body.job_id as string;
  const waiting = await jobUntil(ALICE, id, (v) => (v.progress?.escalations ?? []).length > 0);
  const [call] = waiting.progress.escalations;
  expect(call).toMatchObject({ tool: 'shell_exec', turn_id: 't1', rule_source: 'tools.shell_exec' });
  const route = `/api/jobs/${id}/escalations/${call.tool_call_id}`;
  expect((await as(ALICE, 'POST', `/api/jobs/${id}/escalations/call_nope`, { decision: 'allow' })).body.error.code).toBe('INVALID_TOOL_CALL');
  expect((await as(BOB, 'POST', route, { decision: 'allow' })).body.error.code).toBe('JOB_NOT_FOUND');
  expect((await as(ALICE, 'POST', route, { decision: 'allow', reason: 'looks harmless' })).body).toEqual({ job_id: id, tool_call_id: call.tool_call_id, decision: 'allow', by: 'alice' });
  const twice = await as(ALICE, 'POST', route, { decision: 'deny' });
  expect([twice.status, twice.body.error.code]).toEqual([409, 'JOB_ESCALATION_ANSWERED']);
  const ended = await jobUntil(ALICE, id, (v) => v.status !== 'running');
  expect(ended.status).toBe('succeeded');
  expect(ended.report.tool_calls.map((c: any) => [c.tool, c.outcome, c.decided_by, c.answered_by])).toEqual([['shell_exec', 'ran', 'person', 'alice']]);
  expect(ended.report.commands.map((c: any) => [c.command, c.exit_code])).toEqual([['echo yes > approved.txt', 0]]);
}, 120_000);

test('`strand job run --wait` starts a job from a spec file, follows it and prints its markdown report; exit 0 when it succeeded', () => {
  const file = path.join(js.tmp, 'spec.json');
  fs.writeFileSync(file, JSON.stringify(spec('job-ok')));
  const id = `cli-${Date.now()}`;
  const env = { ...process.env, STRAND_GATEWAY_URL: base, STRAND_TOKEN: ALICE };
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'services/cli/main.ts', 'job', 'run', file, '--id', id, '--wait'], { encoding: 'utf8', env, timeout: 90_000 });
  expect([run.status, run.stdout.split('\n')[0]]).toEqual([0, `job ${id} started`]);
  expect(run.stdout).toContain(`# Job ${id}: succeeded`);
  expect(run.stdout).toContain('| `hello.txt` | +2 | -0 |');
  const list = spawnSync(process.execPath, ['--import', 'tsx', 'services/cli/main.ts', 'jobs'], { encoding: 'utf8', env });
  expect(list.stdout.split('\n').find((l) => l.startsWith(id))).toMatch(/ succeeded .* run job-ok$/);
}, 120_000);
