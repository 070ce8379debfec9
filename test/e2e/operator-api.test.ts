import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { operatorOverviewSchema, type OperatorOverview } from '../../contracts/operator';
import { turnListSchema } from '../../contracts/http-replies';
import { openSse, readUntil, type SseConnection } from '../harness/sse-client';
import { httpAs, startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * The operator view's data on a real stack with tokens: every process publishes its telemetry
 * snapshot on core NATS every 500 ms, the gateway gathers them, and GET /api/operator answers the
 * history (turns by outcome, first-delta percentiles, provider errors by class, connections), the
 * failures (only the caller's) and the instances; GET /api/turns shows a running turn's model, tokens
 * and its workflow in the Temporal UI (docs/observability.md, "The operator view's data").
 */
const ALICE = 'tok-alice';
const BOB = 'tok-bob';
const UI = 'http://127.0.0.1:18233/ui-base';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-operator-'));
const scripts = path.join(tmp, 'scripts');
const project = path.join(tmp, 'project');
let stack: TestStack;
let base: string;

function writeScript(name: string, steps: unknown[][]): void {
  fs.writeFileSync(path.join(scripts, `${name}.json`), JSON.stringify({ steps }));
}

beforeAll(async () => {
  fs.mkdirSync(scripts, { recursive: true });
  fs.mkdirSync(project, { recursive: true });
  writeScript('op-answer', [[{ type: 'text', text: 'A short answer.' }, { type: 'usage', input: 12, output: 3 }]]);
  writeScript('op-refused', [[{ type: 'error', kind: 'auth', status: 401, message: 'scripted: the key was refused' }]]);
  // The first step's tokens are stored while the second waits: a job caught mid-turn has tokens.
  writeScript('op-slow', [
    [{ type: 'text', text: 'Looking.' }, { type: 'tool_call', name: 'read_file', args: { path: 'README.md' } }, { type: 'usage', input: 40, output: 7 }],
    [{ type: 'text', text: 'Still thinking.' }, { type: 'delay', ms: 30_000 }, { type: 'text', text: 'Done.' }],
  ]);
  writeScript('op-rate-limited', [
    [
      { type: 'error', kind: 'rate_limited', status: 429, retry_after_ms: 4_000, message: 'scripted: slow down', times: 1 },
      { type: 'text', text: 'Answered after the wait.' },
    ],
  ]);
  fs.writeFileSync(path.join(project, 'README.md'), 'hello\n');
  stack = await startTestStack({
    STRAND_TOKENS: `${ALICE}:alice,${BOB}:bob`,
    STRAND_SCRIPTS_DIR: scripts,
    STRAND_SCRIPTED_DELTA_DELAY_MS: '2',
    STRAND_TELEMETRY_INTERVAL_MS: '500',
    STRAND_TEMPORAL_UI_URL: `${UI}/`,
  }, { instances: { gateway: 2 } });
  base = stack.urls.gateway;
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
  fs.rmSync(tmp, { recursive: true, force: true });
}, 60_000);

const as = (token: string, method: string, route: string, body?: unknown) => httpAs(base, token, method, route, body);

async function overview(token = ALICE, gateway = base, since?: number): Promise<OperatorOverview> {
  const res = await fetch(`${gateway}/api/operator${since === undefined ? '' : `?since=${since}`}`, { headers: { Authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return operatorOverviewSchema.parse(await res.json());
}

/** Polls GET /api/operator (as the page does) until `done` holds; the last answer either way. */
async function overviewUntil(done: (o: OperatorOverview) => boolean, token = ALICE, timeoutMs = 20_000, gateway = base): Promise<OperatorOverview> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const o = await overview(token, gateway);
    if (done(o) || Date.now() > deadline) return o;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const sum = (o: OperatorOverview, pick: (p: OperatorOverview['series'][number]) => number) => o.series.reduce((n, p) => n + pick(p), 0);

async function newSession(model: string, token = ALICE): Promise<string> {
  const res = await as(token, 'POST', '/api/sessions', { project_path: project, model });
  expect(res.status).toBe(201);
  return res.body.session_id;
}

async function runTurn(session: string, text: string): Promise<string> {
  const sse: SseConnection = await openSse(`${base}/api/sessions/${session}/events`, { headers: { Authorization: `Bearer ${ALICE}` } });
  try {
    expect((await as(ALICE, 'POST', `/api/sessions/${session}/prompt`, { text })).status).toBe(202);
    const events = await readUntil(sse, (e) => e.event === 'turn.finished');
    return JSON.parse(events.at(-1)!.data).outcome;
  } finally {
    sse.close();
  }
}

test('the instances: both gateways and the worker, heard within an interval or two, by each gateway; the Temporal UI base', async () => {
  const services = (o: OperatorOverview) => o.instances.map((i) => i.service).sort();
  for (const gateway of stack.urls.gateways) {
    const o = await overviewUntil((x) => services(x).join() === 'gateway,gateway,worker', ALICE, 20_000, gateway);
    expect(services(o)).toEqual(['gateway', 'gateway', 'worker']);
    expect(o.temporal_ui).toBe(UI);
    expect([o.interval_s, o.window_s]).toEqual([0.5, 3600]);
    expect(o.series.length).toBeGreaterThan(0);
  }
}, 60_000);

test('?since= answers only the newer points (what the page polls with), failures and instances whole; a bad since is refused', async () => {
  const whole = await overviewUntil((o) => o.series.length >= 3);
  const cut = whole.series[whole.series.length - 2]!.at;
  // Points keep coming every 500 ms: the newer ones are the last point of `whole` and any since.
  const newer = await overview(ALICE, base, cut);
  expect(newer.series.length).toBeGreaterThan(0);
  expect(newer.series.every((p) => p.at > cut)).toBe(true);
  expect(newer.series[0]).toEqual(whole.series[whole.series.length - 1]);
  expect(newer.instances.length).toBe(whole.instances.length);
  expect((await overview(ALICE, base, 0)).series.length).toBeGreaterThanOrEqual(whole.series.length);
  const bad = await fetch(`${base}/api/operator?since=yesterday`, { headers: { Authorization: `Bearer ${ALICE}` } });
  expect(bad.status).toBe(400);
}, 60_000);

test('a finished turn and a refused one: counted by outcome, first delta measured, the provider error by class, the failure listed for its owner only', async () => {
  const before = await overview();
  const ok = await newSession('scripted/op-answer');
  expect(await runTurn(ok, 'hello')).toBe('done');
  const refused = await newSession('scripted/op-refused');
  expect(await runTurn(refused, 'hello again')).toBe('error');

  const after = await overviewUntil((o) => o.failures.some((f) => f.session_id === refused) && sum(o, (p) => p.turns_finished.error ?? 0) >= 1 && sum(o, (p) => p.turns_finished.done ?? 0) >= 1);
  const newPoints = after.series.filter((p) => p.at > (before.series.at(-1)?.at ?? 0));
  expect({
    done: newPoints.reduce((n, p) => n + (p.turns_finished.done ?? 0), 0),
    error: newPoints.reduce((n, p) => n + (p.turns_finished.error ?? 0), 0),
    started: newPoints.reduce((n, p) => n + p.turns_started, 0),
    auth: newPoints.reduce((n, p) => n + (p.provider_errors.auth ?? 0), 0),
  }).toEqual({ done: 1, error: 1, started: 2, auth: 1 });
  // Only the finished turn produced output: one interval holds one first-delta observation.
  const measured = newPoints.filter((p) => p.first_delta_ms !== null);
  expect(measured).toHaveLength(1);
  expect(measured[0]!.first_delta_ms!.p50).toBeGreaterThan(0);
  expect(measured[0]!.first_delta_ms!.p50).toBeLessThanOrEqual(measured[0]!.first_delta_ms!.p99);
  expect(newPoints.find((p) => (p.turns_finished.done ?? 0) > 0)!.turns_per_minute).toBeGreaterThan(0);

  expect(after.failures.filter((f) => f.session_id === refused)).toEqual([
    { at: expect.any(Number), session_id: refused, turn_id: 't1', job_id: `session:${refused}:turn:1`, code: 'LLM_API_ERROR', kind: 'auth', provider: 'scripted', status: 401, message: expect.stringContaining('scripted: the key was refused') },
  ]);
  expect(after.failures.some((f) => f.session_id === ok)).toBe(false);
  // Another principal sees the same history but not alice's failure.
  const bobs = await overview(BOB);
  expect(bobs.failures.some((f) => f.session_id === refused)).toBe(false);
  expect(bobs.series.length).toBeGreaterThan(0);
}, 90_000);

test('an event stream open on the second gateway shows as an sse connection in the first one’s overview while it is open', async () => {
  const session = await newSession('scripted/op-answer');
  const openStreams = (o: OperatorOverview) => o.series.at(-1)?.connections.sse ?? 0;
  expect(openStreams(await overviewUntil((o) => openStreams(o) === 0))).toBe(0);
  const sse = await openSse(`${stack.urls.gateways[1]}/api/sessions/${session}/events`, { headers: { Authorization: `Bearer ${ALICE}` } });
  try {
    expect(openStreams(await overviewUntil((o) => openStreams(o) === 1))).toBe(1);
  } finally {
    sse.close();
  }
  expect(openStreams(await overviewUntil((o) => openStreams(o) === 0))).toBe(0);
}, 60_000);

test('GET /api/turns during a slow turn: the model, the tokens so far, no retry, the workflow in the Temporal UI', async () => {
  const session = await newSession('scripted/op-slow');
  expect((await as(ALICE, 'POST', `/api/sessions/${session}/prompt`, { text: 'read it slowly' })).status).toBe(202);
  const jobId = `session:${session}:turn:1`;
  let job: any;
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const list = turnListSchema.parse((await as(ALICE, 'GET', '/api/turns')).body);
    job = list.turns.find((j) => j.job_id === jobId);
    if (job && job.tokens.output > 0) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(job).toMatchObject({
    job_id: jobId,
    status: 'running',
    model: 'scripted/op-slow',
    tokens: { input: 40, output: 7 },
    retry_attempt: 0,
    workflow_url: `${UI}/namespaces/default/workflows/${encodeURIComponent(jobId)}`,
  });
  expect((await as(BOB, 'GET', '/api/turns')).body.turns.some((j: any) => j.job_id === jobId)).toBe(false);
  // `strand turns list` names the model too.
  // Not spawnSync: a blocked event loop would miss the gateway closing an idle keep-alive socket, and the next request would fail on it.
  const cli = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'services/cli/main.ts', 'turns', 'list'], { encoding: 'utf8', env: { ...process.env, STRAND_GATEWAY_URL: base, STRAND_TOKEN: ALICE } });
  expect(cli.stdout.split('\n').find((line) => line.startsWith(jobId))).toMatch(/ scripted\/op-slow /);
  expect((await as(ALICE, 'POST', `/api/turns/${encodeURIComponent(jobId)}/cancel`)).body).toEqual({ status: 'cancelled' });
}, 60_000);

test('a turn waiting out a rate limit: its job shows the retry attempt, the overview counts the retry and the provider error by class', async () => {
  const since = (await overview()).series.at(-1)!.at;
  const session = await newSession('scripted/op-rate-limited');
  const sse = await openSse(`${base}/api/sessions/${session}/events`, { headers: { Authorization: `Bearer ${ALICE}` } });
  try {
    expect((await as(ALICE, 'POST', `/api/sessions/${session}/prompt`, { text: 'hurry' })).status).toBe(202);
    const jobId = `session:${session}:turn:1`;
    let job: any;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && !(job?.retry_attempt > 0)) {
      job = turnListSchema.parse((await as(ALICE, 'GET', '/api/turns')).body).turns.find((j) => j.job_id === jobId);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(job).toMatchObject({ phase: 'retrying', retry_attempt: 1 });
    const total = (o: OperatorOverview, pick: (p: OperatorOverview['series'][number]) => number) => o.series.filter((p) => p.at > since).reduce((n, p) => n + pick(p), 0);
    const o = await overviewUntil((x) => total(x, (p) => p.retries.rate_limited ?? 0) >= 1);
    expect([total(o, (p) => p.retries.rate_limited ?? 0), total(o, (p) => p.provider_errors.rate_limited ?? 0)]).toEqual([1, 1]);
    const events = await readUntil(sse, (e) => e.event === 'turn.finished');
    expect(JSON.parse(events.at(-1)!.data).outcome).toBe('done');
  } finally {
    sse.close();
  }
}, 60_000);

test('a worker killed and started again: the failures it reported stay listed, its new process replaces it in the instances, and counts its turns once', async () => {
  const before = await overview();
  const failed = before.failures.map((f) => f.session_id);
  expect(failed.length).toBeGreaterThan(0);
  const workers = (o: OperatorOverview) => o.instances.filter((i) => i.service === 'worker').map((i) => i.instance);
  const [old] = workers(before);
  await stack.process('worker').kill();
  await stack.restart('worker');
  // Silent for three intervals, the killed process leaves; the new one is there.
  const after = await overviewUntil((o) => workers(o).length === 1 && workers(o)[0] !== old);
  expect(workers(after)).toEqual([expect.not.stringMatching(old!)]);
  expect(after.failures.map((f) => f.session_id)).toEqual(failed);

  const since = after.series.at(-1)!.at;
  expect(await runTurn(await newSession('scripted/op-answer'), 'once more')).toBe('done');
  const done = (o: OperatorOverview) => o.series.filter((p) => p.at > since).reduce((n, p) => n + (p.turns_finished.done ?? 0), 0);
  const counted = await overviewUntil((o) => done(o) >= 1);
  await new Promise((r) => setTimeout(r, 1_500)); // three more intervals: nothing counted twice
  expect([done(counted), done(await overview())]).toEqual([1, 1]);
}, 90_000);
