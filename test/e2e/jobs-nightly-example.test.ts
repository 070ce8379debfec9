import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gitOk } from '../../activities/job-workspace/git';
import { jobReportSchema } from '../../contracts/job-report';
import { nightlyReceiver, type Delivery } from '../../docs/examples/nightly-webhook-receiver';
import { waitFor } from '../harness/dev-server-worker';
import { startFakeAnthropicServer, type FakeAnthropicReply, type FakeProviderServer, type RecordedRequest } from '../harness/fake-anthropic-server';
import { http as call, startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * docs/jobs.md, "Example: a nightly test run", run as written on a real stack (nats-server, the
 * Temporal dev server, store, worker, gateway) with a fake Anthropic server behind the spec's model:
 * the doc shows docs/examples/nightly-tests.job.json and nightly-webhook-receiver.ts verbatim, its
 * shell blocks are run by bash in order (`strand` is the CLI from this checkout, the address the test
 * stack's). The spec is the file's, with three changes only: the project is a temporary repository,
 * the webhook's port a free one, and the escalation's timeout 3 s instead of 900 (nobody answers).
 * The scripted model runs `npm test` (it fails), fixes the code, tries to delete a file (escalated,
 * denied at the timeout), runs `npm test` again (it passes) and ends.
 */
const root = path.resolve(__dirname, '../..');
const SECRET = 'nightly-secret-for-the-test';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-nightly-'));
const repo = path.join(tmp, 'app');
const workdir = path.join(tmp, 'me');
const deliveries: Delivery[] = [];
let anthropic: FakeProviderServer<FakeAnthropicReply>;
let receiver: http.Server;
let stack: TestStack;

/** The section, its ```lang blocks in order. */
function section(): { text: string; blocks: { lang: string; body: string }[] } {
  const doc = fs.readFileSync(path.join(root, 'docs/jobs.md'), 'utf8');
  const start = doc.indexOf('## Example: a nightly test run');
  if (start < 0) throw new Error('docs/jobs.md has no "## Example: a nightly test run" section');
  const end = doc.indexOf('\n## ', start + 1);
  const text = doc.slice(start, end < 0 ? undefined : end);
  const blocks = [...text.matchAll(/```(\w+)\n([\s\S]*?)\n```/g)].map((m) => ({ lang: m[1]!, body: m[2]! }));
  return { text, blocks };
}

/** The model's side: the step is how many assistant messages the job's one conversation holds. */
function respond(request: RecordedRequest): FakeAnthropicReply {
  const messages = (request.body?.messages ?? []) as { role: string }[];
  const step = messages.filter((m) => m.role === 'assistant').length;
  const tool = (id: string, name: string, input: Record<string, unknown>, text?: string): FakeAnthropicReply => ({
    blocks: [...(text ? [{ type: 'text' as const, text }] : []), { type: 'tool_use', id: `toolu_nightly_${id}`, name, input }],
  });
  switch (step) {
    case 0:
      return tool('test1', 'shell_exec', { command: 'npm test' }, 'Running the tests first.');
    case 1:
      return tool('fix', 'edit_file', { path: 'math.js', old: 'a - b', new: 'a + b' }, 'add() subtracts: fixing it.');
    case 2:
      return tool('tidy', 'delete_file', { path: 'scratch.tmp' });
    case 3:
      return tool('test2', 'shell_exec', { command: 'npm test' });
    default:
      return { blocks: [{ type: 'text', text: 'Fixed add() in math.js, which subtracted; `npm test` passes now.' }] };
  }
}

/**
 * Runs a block with bash. Asynchronously: a synchronous spawn would hold this process's event loop
 * for seconds, during which the gateway closes an idle keep-alive connection of fetch's pool unseen,
 * and the next request on it fails with "other side closed".
 */
function bash(script: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  // The `strand` command as `npm run install-cli` links it: this checkout's launcher.
  const cli = `strand() { node ${JSON.stringify(path.join(root, 'bin/strand.cjs'))} "$@"; }`;
  const address = new URL(stack.urls.gateway).host;
  const body = `set -e\n${cli}\n${script.replaceAll('127.0.0.1:9420', address)}`;
  const env = { ...process.env, STRAND_GATEWAY_URL: stack.urls.gateway };
  return new Promise((resolve) => {
    execFile('timeout', ['120', 'bash', '-c', body], { cwd: workdir, encoding: 'utf8', env }, (err, stdout, stderr) => {
      resolve({ status: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  fs.mkdirSync(repo);
  fs.mkdirSync(workdir);
  fs.writeFileSync(path.join(repo, 'package.json'), JSON.stringify({ name: 'app', private: true, scripts: { test: 'node test.js' } }, null, 2));
  fs.writeFileSync(path.join(repo, 'math.js'), 'exports.add = (a, b) => a - b;\n');
  fs.writeFileSync(path.join(repo, 'test.js'), "const assert = require('node:assert');\nassert.strictEqual(require('./math').add(2, 2), 4);\nconsole.log('all tests passed');\n");
  fs.writeFileSync(path.join(repo, 'scratch.tmp'), 'keep me\n');
  await gitOk(repo, ['init', '--quiet', '--initial-branch', 'main']);
  await gitOk(repo, ['add', '-A']);
  await gitOk(repo, ['-c', 'user.name=me', '-c', 'user.email=me@example.invalid', 'commit', '--quiet', '-m', 'add()']);
  anthropic = await startFakeAnthropicServer({ respond });
  receiver = nightlyReceiver(SECRET, (d) => deliveries.push(d));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  stack = await startTestStack({
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: anthropic.baseURL,
    STRAND_JOB_SECRET_NIGHTLY: SECRET,
    STRAND_JOBS_DIR: path.join(tmp, 'jobs'),
  });
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
  await anthropic?.close();
  receiver?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}, 60_000);

test('the doc shows the example files as they are', () => {
  const { blocks } = section();
  const spec = fs.readFileSync(path.join(root, 'docs/examples/nightly-tests.job.json'), 'utf8').trimEnd();
  const receiverSource = fs.readFileSync(path.join(root, 'docs/examples/nightly-webhook-receiver.ts'), 'utf8').trimEnd();
  expect(blocks.filter((b) => b.lang === 'json').map((b) => b.body)).toContain(spec);
  expect(blocks.filter((b) => b.lang === 'ts').map((b) => b.body)).toContain(receiverSource);
});

test('the nightly schedule: created from the command line and over HTTP, triggered now, its run found, its report read, its webhook verified', async () => {
  const sh = section().blocks.filter((b) => b.lang === 'sh').map((b) => b.body);
  expect(sh).toHaveLength(4);
  const [create, overHttp, now, morning] = sh as [string, string, string, string];

  // The spec file as the doc has it, with the project, the receiver's port and a short escalation timeout.
  const spec = JSON.parse(fs.readFileSync(path.join(root, 'docs/examples/nightly-tests.job.json'), 'utf8'));
  expect([spec.task.project_path, spec.notify.url, spec.policy.escalation.timeout_s]).toEqual(['/home/me/src/app', 'http://127.0.0.1:8787/strand-nightly', 900]);
  spec.task.project_path = repo;
  spec.notify.url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/strand-nightly`;
  spec.policy.escalation.timeout_s = 3;
  fs.writeFileSync(path.join(workdir, 'nightly-tests.job.json'), JSON.stringify(spec, null, 2));

  // Created with the CLI: its next run is at 02:00 in Paris.
  const created = await bash(create);
  expect({ status: created.status, stderr: created.stderr }).toEqual({ status: 0, stderr: '' });
  expect(created.stdout).toMatch(/^created nightly-tests; next run \d{4}-/);
  const shown = await call(stack.urls.gateway, 'GET', '/api/schedules/nightly-tests');
  expect(shown.body).toMatchObject({ name: 'nightly-tests', cron: '0 2 * * *', timezone: 'Europe/Paris', overlap: 'skip' });
  const parisTime = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', hour: '2-digit', minute: '2-digit' });
  expect(parisTime.format(new Date(shown.body.next_runs[0]))).toBe('02:00');

  // The same over HTTP (after deleting the first: the name is taken).
  expect((await call(stack.urls.gateway, 'DELETE', '/api/schedules/nightly-tests')).status).toBe(200);
  const posted = await bash(overHttp);
  expect(posted.status).toBe(0);
  expect(JSON.parse(posted.stdout)).toMatchObject({ name: 'nightly-tests', cron: '0 2 * * *', timezone: 'Europe/Paris', overlap: 'skip' });

  // Tonight's run, now.
  const triggered = await bash(now);
  expect({ status: triggered.status, stdout: triggered.stdout.trim() }).toEqual({ status: 0, stdout: 'triggered nightly-tests' });
  const ledger = await waitFor(
    () => call(stack.urls.gateway, 'GET', '/api/schedules/nightly-tests/runs'),
    (r) => r.body.runs.some((e: any) => e.kind === 'trigger' && e.job_status && !['running', 'waiting_for_worker'].includes(e.job_status)),
    180_000,
  );
  const run = ledger.body.runs.find((e: any) => e.kind === 'trigger');
  expect(run).toMatchObject({ outcome: 'ran', job_status: 'succeeded' });
  const jobId: string = run.job_id;
  expect(jobId).toMatch(/^nightly-tests-\d{8}-\d{6}-\d{3}$/);

  // The next morning: the ledger, then the report of the last run.
  const morningRun = await bash(morning);
  expect({ status: morningRun.status, stderr: morningRun.stderr }).toEqual({ status: 0, stderr: '' });
  expect(morningRun.stdout).toContain(`trigger     ran       ${jobId} succeeded`);
  for (const line of [
    `# Job ${jobId}: succeeded`,
    '| `math.js` | +1 | -1 |',
    '| `npm test` | 1 |',
    '| `npm test` | 0 |',
    '| `delete_file` | t1 | escalate (`default`) | denied (error) | timeout | nobody answered within 3 s: denied |',
  ]) {
    expect(morningRun.stdout).toContain(line);
  }
  expect(await gitOk(repo, ['show', `strand/job-${jobId}:math.js`])).toBe('exports.add = (a, b) => a + b;\n');
  expect(fs.existsSync(path.join(repo, 'scratch.tmp'))).toBe(true);

  // What the receiver got, signatures checked: the escalation while it waited, then the report itself.
  await waitFor(async () => deliveries, (d) => d.some((x) => x.event === 'job.finished'), 60_000);
  const report = jobReportSchema.parse((await call(stack.urls.gateway, 'GET', `/api/jobs/${jobId}/report`)).body);
  const finished = deliveries.find((d) => d.event === 'job.finished')!;
  expect(finished.id).toBe(`job:${jobId}:report`);
  expect(finished.body).toEqual(report);
  expect(deliveries.find((d) => d.event === 'job.escalation')?.body).toMatchObject({ job_id: jobId, tool: 'delete_file', on_timeout: 'deny' });
  // A body that does not match its signature is refused, and not handed on.
  const count = deliveries.length;
  const forged = await fetch(spec.notify.url, { method: 'POST', headers: { 'X-Strand-Event': 'job.finished', 'X-Strand-Delivery': 'forged', 'X-Strand-Signature': `sha256=${'0'.repeat(64)}` }, body: '{}' });
  expect(forged.status).toBe(401);
  expect(deliveries).toHaveLength(count);
}, 420_000);
