import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildOpenApiDocument } from '../../services/gateway/http/openapi/build-document';
import { createHttpApp, type HttpDeps } from '../../services/gateway/http/app';
import { createGatewayAuth } from '../../services/gateway/auth/tokens';
import { waitFor } from '../harness/dev-server-worker';
import { OpenApiCheck } from '../harness/openapi-check';
import { startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * `/api/schedules` on a real stack (nats-server, the Temporal dev server, store, worker, gateway):
 * create, list, show, pause, trigger, backfill, resume, read the ledger and delete, every answer
 * checked against the served OpenAPI document. An hourly schedule, so only the trigger and the
 * backfill run while the test does.
 */
const doc = buildOpenApiDocument(createHttpApp({ auth: createGatewayAuth(new Map()), maxBodyBytes: 1, rateLimit: { perSecond: 1, burst: 1 }, keepaliveMs: 1 } as unknown as HttpDeps));
const check = new OpenApiCheck(doc);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-schedules-'));
const project = path.join(tmp, 'project');
let stack: TestStack;
let base: string;

beforeAll(async () => {
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'notes.txt'), 'hello\n');
  stack = await startTestStack({ STRAND_JOBS_DIR: path.join(tmp, 'jobs') });
  base = stack.urls.gateway;
}, 180_000);
afterAll(async () => {
  await stack?.teardown();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function call(method: string, route: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${route}`, { method, ...(body !== undefined ? { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  expect(check.problems({ method, path: new URL(route, base).pathname, status: res.status, contentType: res.headers.get('content-type'), text })).toEqual([]);
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const HOUR = 3_600_000;

test('a schedule through HTTP: created, listed, shown, paused, triggered, backfilled, resumed, its ledger read, deleted', async () => {
  const spec = { version: 1, task: { prompt: 'Say hello', project_path: project, model: 'scripted/echo' } };
  const created = await call('POST', '/api/schedules', { name: 'hourly', spec, interval: '1h', overlap: 'skip' });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ name: 'hourly', interval: '1h', overlap: 'skip', pause_on_failure: false, notes: false, state: { paused: false } });
  expect(Date.parse(created.body.next_runs[0]) % HOUR).toBe(0);

  // Refused before Temporal is asked: both cron and interval, a misspelt key deep in the spec, a name in use.
  expect((await call('POST', '/api/schedules', { name: 'both', spec, interval: '1h', cron: '0 3 * * *' })).body.error.code).toBe('INVALID_REQUEST');
  expect((await call('POST', '/api/schedules', { name: 'typo', spec: { ...spec, limits: { max_step: 3 } }, interval: '1h' })).body.error.code).toBe('INVALID_REQUEST');
  const again = await call('POST', '/api/schedules', { name: 'hourly', spec, interval: '2h' });
  expect([again.status, again.body.error.code]).toEqual([400, 'INVALID_REQUEST']);

  // Temporal's list shows a new schedule within moments.
  await waitFor(() => call('GET', '/api/schedules'), (r) => r.body.schedules.some((s: { name: string }) => s.name === 'hourly'));

  const paused = await call('POST', '/api/schedules/hourly/pause', { note: 'maintenance' });
  expect(paused.body).toEqual({ name: 'hourly', status: 'paused' });
  expect((await call('GET', '/api/schedules/hourly')).body).toMatchObject({ state: { paused: true, note: 'maintenance' } });

  // A trigger runs even while paused; the ledger lists it with its job, once the job has ended.
  expect((await call('POST', '/api/schedules/hourly/trigger')).body).toEqual({ name: 'hourly', status: 'triggered' });
  const triggered = await waitFor(
    () => call('GET', '/api/schedules/hourly/runs'),
    (r) => r.body.runs.some((e: any) => e.kind === 'trigger' && e.job_status === 'succeeded'),
    120_000,
  );
  const trigger = triggered.body.runs.find((e: any) => e.kind === 'trigger');
  expect(trigger.job_id).toMatch(/^hourly-\d{8}-\d{6}(-\d{3})?$/);

  // A backfill of three past due times, under the skip policy: the first runs, the two others are skipped (it still ran).
  const lastHour = Math.floor(Date.now() / HOUR) * HOUR - HOUR;
  const backfill = await call('POST', '/api/schedules/hourly/backfill', { from: new Date(lastHour - 2 * HOUR).toISOString(), to: new Date(lastHour).toISOString() });
  expect(backfill.body).toEqual({ name: 'hourly', status: 'backfilling' });
  const filled = await waitFor(
    () => call('GET', '/api/schedules/hourly/runs'),
    (r) => r.body.runs.filter((e: any) => e.kind === 'backfill' && e.outcome !== 'pending' && e.job_status !== 'running' && e.job_status !== 'waiting_for_worker').length === 3,
    120_000,
  );
  const backfilled = filled.body.runs.filter((e: any) => e.kind === 'backfill');
  expect(backfilled.map((e: any) => [Date.parse(e.due_at), e.outcome, e.reason ?? e.job_status])).toEqual([
    [lastHour - 2 * HOUR, 'ran', 'succeeded'],
    [lastHour - HOUR, 'skipped', 'overlap'],
    [lastHour, 'skipped', 'overlap'],
  ]);

  expect((await call('POST', '/api/schedules/hourly/resume')).body).toEqual({ name: 'hourly', status: 'resumed' });
  const shown = await call('GET', '/api/schedules/hourly');
  expect(shown.body).toMatchObject({ state: { paused: false }, temporal: { skipped_overlap: 2 } });
  expect(shown.body.next_runs.length).toBeGreaterThan(0);
  expect(shown.body.ledger.length).toBeGreaterThanOrEqual(4);
  expect((await call('GET', '/api/schedules/hourly/runs?limit=2')).body.runs).toHaveLength(2);
  expect((await call('GET', '/api/schedules/hourly/runs?limit=0')).status).toBe(400);

  expect((await call('DELETE', '/api/schedules/hourly')).body).toEqual({ name: 'hourly', status: 'deleted' });
  const gone = await call('GET', '/api/schedules/hourly');
  expect([gone.status, gone.body.error.code]).toEqual([404, 'JOB_NOT_FOUND']);
  expect((await call('POST', '/api/schedules/nope/pause', {})).status).toBe(404);
}, 400_000);
