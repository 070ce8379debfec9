import '../harness/quiet-temporal';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { gitOk } from '../../activities/job-workspace/git';
import { hookCoordinatorId, hookCoordinatorViewQuery } from '../../contracts/job-hook';
import { signHookBody } from '../../contracts/job-hook-signature';
import type { JobReport } from '../../contracts/job-report';
import { jobProgressQuery, jobWorkflowId } from '../../contracts/job-workflow';
import { waitFor } from '../harness/dev-server-worker';
import { startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * Triggers on the real stack (docs/jobs.md, "Triggers"): a token holder defines a hook, a sender
 * with the hook's secret (and no token) delivers signed bodies, and the jobs run on the real worker
 * (the scripted model, a git repository in a temporary folder). Job reports are read from Temporal.
 */
const SECRET = 'hook-secret-for-tests';
const TOKEN = 'tok-alice';
let stack: TestStack;
let tmp: string;
let repo: string;
let temporal: Connection;
let client: Client;

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'job-hooks-'));
  const scripts = path.join(tmp, 'scripts');
  repo = path.join(tmp, 'repo');
  await fs.mkdir(scripts);
  await fs.mkdir(repo);
  // slow: a shell call the policy escalates, so the job waits for a person; quick: an answer at once.
  await fs.writeFile(path.join(scripts, 'slow.json'), JSON.stringify({ steps: [[{ type: 'tool_call', name: 'shell_exec', args: { command: 'echo slow' } }], [{ type: 'text', text: 'slow done' }]] }));
  await fs.writeFile(path.join(scripts, 'quick.json'), JSON.stringify({ steps: [[{ type: 'text', text: 'quick done' }]] }));
  await gitOk(repo, ['init', '--quiet', '--initial-branch', 'main']);
  await fs.writeFile(path.join(repo, 'README.md'), '# demo\n');
  await gitOk(repo, ['add', '-A']);
  await gitOk(repo, ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '--quiet', '-m', 'first']);
  stack = await startTestStack({ STRAND_TOKENS: `${TOKEN}:alice`, STRAND_SCRIPTS_DIR: scripts, STRAND_JOBS_DIR: path.join(tmp, 'jobs'), HOOK_TEST_SECRET: SECRET });
  temporal = await Connection.connect({ address: stack.urls.temporal });
  client = new Client({ connection: temporal });
}, 180_000);

afterAll(async () => {
  await temporal?.close();
  await stack?.teardown();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
}, 60_000);

async function api(method: string, route: string, body?: unknown, headers: Record<string, string> = { Authorization: `Bearer ${TOKEN}` }) {
  const res = await fetch(`${stack.urls.gateway}${route}`, {
    method,
    headers: { ...headers, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
}

/** A delivery as a CI system sends it: no token, the body's signature, a delivery id. */
function deliver(name: string, payload: unknown, deliveryId: string, sign: (raw: string) => string | undefined = (raw) => signHookBody(SECRET, raw)) {
  const raw = JSON.stringify(payload);
  const signature = sign(raw);
  return api('POST', `/api/hooks/${name}`, raw, { 'X-Strand-Delivery': deliveryId, ...(signature ? { 'X-Strand-Signature': signature } : {}) });
}

function define(name: string, extra: Record<string, unknown> = {}) {
  return api('PUT', `/api/hooks/${name}`, {
    template: {
      version: 1,
      task: { prompt: 'Look at ${ref}', project_path: repo, model: 'scripted/${script}' },
      policy: { tools: { shell_exec: 'escalate' }, escalation: { timeout_s: 3600 } },
    },
    values: { ref: '/ref', script: '/script' },
    secret_env: 'HOOK_TEST_SECRET',
    ...extra,
  });
}

const report = (jobId: string) => client.workflow.getHandle(jobWorkflowId(jobId)).result() as Promise<JobReport>;

async function workflowExists(workflowId: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

test('a token holder defines, lists, shows and deletes a hook; without a token nothing but a delivery is taken', async () => {
  expect((await define('lifecycle')).status).toBe(200);
  const noToken = await api('PUT', '/api/hooks/other', { template: {}, secret_env: 'HOOK_TEST_SECRET' }, {});
  expect([noToken.status, noToken.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
  expect((await api('GET', '/api/hooks', undefined, {})).status).toBe(401);
  const listed = await api('GET', '/api/hooks');
  expect(listed.body.hooks.map((h: any) => h.name)).toContain('lifecycle');
  expect(listed.body.hooks.find((h: any) => h.name === 'lifecycle')).toMatchObject({ secret_env: 'HOOK_TEST_SECRET', supersede: 'queue', values: { ref: '/ref' } });
  // The secret is never stored: the definition names its variable only.
  expect(JSON.stringify(listed.body)).not.toContain(SECRET);
  const unset = await api('PUT', '/api/hooks/unset', { template: {}, secret_env: 'NO_SUCH_VARIABLE_SET' });
  expect([unset.status, unset.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
  const undefinedPlaceholder = await api('PUT', '/api/hooks/bad', { template: { task: { prompt: '${nope}' } }, secret_env: 'HOOK_TEST_SECRET' });
  expect([undefinedPlaceholder.status, undefinedPlaceholder.body.error.details]).toEqual([400, { placeholders: ['nope'] }]);
  expect((await api('DELETE', '/api/hooks/lifecycle')).body).toEqual({ deleted: true });
  expect((await api('GET', '/api/hooks/lifecycle')).body.error.code).toBe('HOOK_NOT_FOUND');
  expect((await deliver('lifecycle', { ref: 'main', script: 'quick' }, 'd-gone')).status).toBe(404);
}, 60_000);

test('a signed delivery sent twice with one delivery id starts one job; a bad or missing signature 401 and a missing value 422 start none', async () => {
  expect((await define('ci', { key: 'ref' })).status).toBe(200);
  const body = { ref: 'main', script: 'quick' };

  const unsigned = await deliver('ci', body, 'd-1', () => undefined);
  expect([unsigned.status, unsigned.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
  expect(unsigned.body.error.message).toMatch(/X-Strand-Signature: sha256=/);
  const forged = await deliver('ci', body, 'd-1', (raw) => signHookBody('not-the-secret', raw));
  expect([forged.status, forged.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
  // Signed for another body: the signature covers the raw bytes.
  const replayed = await deliver('ci', body, 'd-1', () => signHookBody(SECRET, JSON.stringify({ ...body, ref: 'other' })));
  expect(replayed.status).toBe(401);
  expect(await workflowExists(hookCoordinatorId('ci', 'main'))).toBe(false);

  // Signed, but no delivery id, or a body that is not JSON: 400, nothing recorded.
  const raw0 = JSON.stringify(body);
  const noId = await api('POST', '/api/hooks/ci', raw0, { 'X-Strand-Signature': signHookBody(SECRET, raw0) });
  expect([noId.status, noId.body.error.code, noId.body.error.message]).toEqual([400, 'INVALID_REQUEST', expect.stringContaining('X-Strand-Delivery')]);
  const notJson = await api('POST', '/api/hooks/ci', 'ref=main', { 'X-Strand-Signature': signHookBody(SECRET, 'ref=main'), 'X-Strand-Delivery': 'd-form' });
  expect([notJson.status, notJson.body.error.message]).toEqual([400, 'the delivery body is not JSON']);

  const missing = await deliver('ci', { ref: 'main' }, 'd-missing');
  expect([missing.status, missing.body.error.code, missing.body.error.details]).toEqual([422, 'HOOK_DELIVERY_REJECTED', { placeholder: 'script', pointer: '/script' }]);
  const notSpec = await deliver('ci', { ref: 'main', script: 'Not A Model!' }, 'd-not-spec');
  expect([notSpec.status, notSpec.body.error.details.path]).toEqual([422, 'task.model']);
  expect(await workflowExists(hookCoordinatorId('ci', 'main'))).toBe(false);

  const first = await deliver('ci', body, 'd-1');
  expect(first.status).toBe(202);
  expect(first.body).toEqual({ delivery_id: 'd-1', job_id: expect.stringMatching(/^hook-ci-[0-9a-f]{12}$/), outcome: 'started' });
  const again = await deliver('ci', body, 'd-1');
  expect([again.status, again.body]).toEqual([200, { delivery_id: 'd-1', job_id: first.body.job_id, outcome: 'duplicate' }]);
  // GitHub's header names are read too: the same delivery under them is the same delivery.
  const raw = JSON.stringify(body);
  const github = await api('POST', '/api/hooks/ci', raw, { 'X-GitHub-Delivery': 'd-1', 'X-Hub-Signature-256': signHookBody(SECRET, raw) });
  expect([github.status, github.body.outcome, github.body.job_id]).toEqual([200, 'duplicate', first.body.job_id]);

  const done = await report(first.body.job_id);
  expect([done.status, done.summary]).toEqual(['succeeded', 'quick done']);
  const view = await waitFor(() => client.workflow.getHandle(hookCoordinatorId('ci', 'main')).query(hookCoordinatorViewQuery), (v) => v.running.length === 0);
  expect(view).toEqual({ running: [], queued: [], seen: 1 });
  const shown = await api('GET', '/api/hooks/ci');
  expect(shown.body.deliveries.map((d: any) => [d.delivery_id, d.outcome, d.job_id])).toEqual([
    ['d-1', 'duplicate', first.body.job_id],
    ['d-1', 'duplicate', first.body.job_id],
    ['d-1', 'started', first.body.job_id],
    ['d-not-spec', 'rejected', null],
    ['d-missing', 'rejected', null],
  ]);
}, 180_000);

test('supersede cancel: a second delivery with the same key cancels the first job (reported cancelled) and runs', async () => {
  expect((await define('deploy', { key: 'ref', supersede: 'cancel' })).status).toBe(200);
  const first = await deliver('deploy', { ref: 'feature/x', script: 'slow' }, 'd-a');
  expect([first.status, first.body.outcome]).toEqual([202, 'started']);
  // The first job is under way: its shell call waits for a person.
  await waitFor(() => client.workflow.getHandle(jobWorkflowId(first.body.job_id)).query(jobProgressQuery), (p) => p.escalations.length > 0, 90_000);
  const second = await deliver('deploy', { ref: 'feature/x', script: 'quick' }, 'd-b');
  expect([second.status, second.body.outcome]).toEqual([202, 'started']);
  expect(second.body.job_id).not.toBe(first.body.job_id);
  expect((await report(first.body.job_id)).status).toBe('cancelled');
  expect((await report(second.body.job_id)).status).toBe('succeeded');
  expect(await workflowExists(hookCoordinatorId('deploy', 'feature/x'))).toBe(true);
}, 180_000);

/** `strand …` as a person runs it, against this stack. */
function strand(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.resolve(__dirname, '../../bin/strand.cjs'), ...args], { env: { ...process.env, STRAND_GATEWAY_URL: stack.urls.gateway, STRAND_TOKEN: TOKEN, ...env }, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

test('strand hook define, list, sign (a signature the gateway takes), show and delete', async () => {
  const defFile = path.join(tmp, 'cli-hook.json');
  await fs.writeFile(defFile, JSON.stringify({ template: { version: 1, task: { prompt: 'cli ${ref}', project_path: repo, model: 'scripted/quick' } }, values: { ref: '/ref' }, secret_env: 'HOOK_TEST_SECRET' }));
  const defined = await strand(['hook', 'define', 'cli-hook', defFile]);
  expect([defined.code, defined.stdout]).toEqual([0, `defined hook cli-hook: deliveries go to ${stack.urls.gateway}/api/hooks/cli-hook, signed with the secret in HOOK_TEST_SECRET\n`]);
  expect((await strand(['hook', 'list'])).stdout).toMatch(/^cli-hook\s+-\s+queue\s+HOOK_TEST_SECRET/m);

  const bodyFile = path.join(tmp, 'cli-body.json');
  const raw = '{"ref": "main"}\n';
  await fs.writeFile(bodyFile, raw);
  const signed = await strand(['hook', 'sign', 'cli-hook', bodyFile], { HOOK_TEST_SECRET: SECRET });
  expect([signed.code, signed.stdout]).toEqual([0, `X-Strand-Signature: ${signHookBody(SECRET, raw)}\n`]);
  const [name, value] = signed.stdout.trim().split(': ') as [string, string];
  const delivered = await api('POST', '/api/hooks/cli-hook', raw, { [name]: value, 'X-Strand-Delivery': 'cli-1' });
  expect([delivered.status, delivered.body.outcome]).toEqual([202, 'started']);
  const unset = await strand(['hook', 'sign', 'cli-hook', bodyFile, '--secret-env', 'NO_SUCH_VARIABLE_SET']);
  expect([unset.code, unset.stderr.trim()]).toEqual([1, "[strand] NO_SUCH_VARIABLE_SET is not set in this shell: set it to hook cli-hook's secret"]);

  const shown = await strand(['hook', 'show', 'cli-hook']);
  expect(JSON.parse(shown.stdout).deliveries.map((d: any) => [d.delivery_id, d.outcome])).toEqual([['cli-1', 'started']]);
  expect((await report(delivered.body.job_id)).status).toBe('succeeded');
  expect((await strand(['hook', 'delete', 'cli-hook'])).stdout).toBe('deleted hook cli-hook\n');
  const gone = await strand(['hook', 'show', 'cli-hook']);
  expect([gone.code, gone.stderr]).toEqual([1, expect.stringContaining('no hook named cli-hook')]);
}, 180_000);
