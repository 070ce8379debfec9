import { execSync } from 'node:child_process';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * Reads of a session need no worker (docs/http.md "Reads"): its workflow keeps its view in its
 * Temporal memo, so `GET` of a session, the list and the settings are answered by the Temporal
 * server alone. Every worker is frozen here with SIGSTOP (what a worker starved on a busy machine, or
 * one stuck in a long garbage collection, looks like to Temporal): before the view, each of these reads
 * was a workflow query that waited for a worker and answered 503 after 5 s. A dormant session's
 * settings change in the store, with no worker either. Temporal itself not answering makes the list
 * show `unknown` with the reason instead of failing it.
 */
let stack: TestStack;
let base: string;
/** Short, so a session goes dormant within the test (the gateway starts sessions with it). */
const IDLE_MS = 8_000;

beforeAll(async () => {
  stack = await startTestStack({ STRAND_SCRIPTED_DELTA_DELAY_MS: '40', STRAND_SESSION_IDLE_TIMEOUT_MS: String(IDLE_MS) }, { instances: { worker: 2 } });
  base = stack.urls.gateway;
}, 240_000);

afterAll(async () => {
  if (stack) freeze('CONT', [...stack.instances('worker'), 'temporal']);
  await stack?.teardown();
}, 60_000);

/** A service's processes: the one the stack started and its children (Temporal runs under a watchdog). */
function processesOf(name: string): number[] {
  const pid = stack.process(name as never).pid;
  if (pid === undefined) return [];
  const children = execSync(`pgrep -P ${pid} || true`).toString().split(/\s+/).filter(Boolean).map(Number);
  return [pid, ...children];
}

/** SIGSTOP freezes the instances (workers by default), SIGCONT thaws them. */
function freeze(signal: 'STOP' | 'CONT', names = stack?.instances('worker') ?? []): void {
  for (const name of names) for (const pid of processesOf(name)) process.kill(pid, `SIG${signal}`);
}

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const session = (sid: string) => http(base, 'GET', `/api/sessions/${sid}`);
const listed = async (sid: string) => ((await http(base, 'GET', '/api/sessions?limit=50')).body.sessions as Array<{ session_id: string }>).find((s) => s.session_id === sid);

test('with every worker frozen, a session, the list and the settings are read, before and during a turn', async () => {
  const sid = (await http(base, 'POST', '/api/sessions', { project_path: '/tmp', model: 'scripted/echo' })).body.session_id as string;
  expect((await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: 'first' })).status).toBe(202);
  await until(() => session(sid), (r) => r.body.message_count === 2 && r.body.agent_state === 'idle', 'the first turn to end');

  freeze('STOP');
  try {
    const got = await session(sid);
    expect([got.status, got.body]).toEqual([200, expect.objectContaining({ status: 'active', agent_state: 'idle', active_turn: null, message_count: 2, model: 'scripted/echo' })]);
    expect(await listed(sid)).toMatchObject({ status: 'active', agent_state: 'idle' });
    const settings = await http(base, 'GET', `/api/sessions/${sid}/settings`);
    expect([settings.status, settings.body.model]).toEqual([200, 'scripted/echo']);
  } finally {
    freeze('CONT');
  }

  // Mid-answer: the view says which turn runs and where it is, read while the workers are frozen.
  const long = Array.from({ length: 150 }, (_, i) => `w${i}`).join(' ');
  expect((await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: long })).status).toBe(202);
  await until(() => session(sid), (r) => r.body.active_turn === 't2', 'the second turn to run');
  freeze('STOP');
  try {
    const got = await session(sid);
    expect([got.status, got.body.active_turn, got.body.agent_state]).toEqual([200, 't2', 'thinking']);
  } finally {
    freeze('CONT');
  }
  await until(() => session(sid), (r) => r.body.message_count === 4 && r.body.active_turn === null, 'the second turn to end');
}, 120_000);

test('a dormant session is renamed with every worker frozen and its checkpoints are listed: it stays dormant, and comes back with its new name', async () => {
  const sid = (await http(base, 'POST', '/api/sessions', { project_path: '/tmp', model: 'scripted/echo' })).body.session_id as string;
  await until(() => session(sid), (r) => r.body.status === 'dormant', 'the session to idle out', IDLE_MS * 6);

  freeze('STOP');
  try {
    const renamed = await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { name: 'renamed while dormant' });
    expect([renamed.status, renamed.body.name]).toEqual([200, 'renamed while dormant']);
    expect((await session(sid)).body).toMatchObject({ status: 'dormant', name: 'renamed while dormant' });
    expect(await listed(sid)).toMatchObject({ status: 'dormant', name: 'renamed while dormant' });
  } finally {
    freeze('CONT');
  }

  // Its file checkpoints are read by a worker, apart from its workflow: it stays dormant.
  const checkpoints = await http(base, 'GET', `/api/sessions/${sid}/checkpoints`);
  expect([checkpoints.status, checkpoints.body]).toEqual([200, { checkpoints: [] }]);
  expect((await session(sid)).body.status).toBe('dormant');

  // It comes back with the name: an active session's settings are its workflow's (its view), loaded from the store.
  expect((await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: 'hello' })).status).toBe(202);
  await until(() => session(sid), (r) => r.body.message_count === 2, 'the turn to end');
  expect((await session(sid)).body).toMatchObject({ status: 'active', name: 'renamed while dormant' });
}, 120_000);

test('Temporal not answering: the list shows each session as unknown with the reason; a GET of one is 503, never 500', async () => {
  const sid = (await http(base, 'POST', '/api/sessions', { project_path: '/tmp', model: 'scripted/echo' })).body.session_id as string;
  freeze('STOP', ['temporal']);
  try {
    const list = await http(base, 'GET', '/api/sessions?limit=50');
    expect(list.status).toBe(200);
    const entry = (list.body.sessions as Array<{ session_id: string; status: string; status_reason?: string; agent_state: string }>).find((s) => s.session_id === sid);
    expect(entry).toMatchObject({ status: 'unknown', agent_state: 'unknown', project_path: '/tmp' });
    expect(entry?.status_reason).toMatch(/Temporal/);
    const one = await session(sid);
    expect([one.status, one.body.error?.code]).toEqual([503, 'UNAVAILABLE']);
  } finally {
    freeze('CONT', ['temporal']);
  }
  // Read again once Temporal answers (active, or dormant if it idled out meanwhile on a slow machine).
  await until(async () => (await listed(sid)) as { status?: string } | undefined, (s) => s?.status === 'active' || s?.status === 'dormant', 'the list to read the session again');
}, 120_000);
