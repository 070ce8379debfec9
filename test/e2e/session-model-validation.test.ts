import { connect, type NatsConnection } from 'nats';
import { StoreClient } from '../../contracts/session-store/client';
import { openSse, readUntil } from '../harness/sse-client';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * Over real HTTP against the whole stack, with no provider key configured: what POST /api/sessions
 * answers is true when it answers (the status a GET right after reports), a model the model command
 * refuses is refused at creation the same way, and a dormant session's view is what its workflow
 * comes back with.
 */
let stack: TestStack;
let base: string;
let nc: NatsConnection;
let store: StoreClient;

beforeAll(async () => {
  stack = await startTestStack({ ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '', STRAND_DEFAULT_MODEL: '' });
  base = stack.urls.gateway;
  nc = await connect({ servers: stack.urls.nats });
  store = new StoreClient(nc);
}, 180_000);

afterAll(async () => {
  await nc?.drain();
  await stack?.teardown();
}, 60_000);

const project = '/tmp/strand-e2e-model-validation';

test('a new session is what POST answers: active, and a GET right after says so too', async () => {
  const created = await http(base, 'POST', '/api/sessions', { project_path: project });
  expect(created.status).toBe(201);
  expect(created.body.status).toBe('active');
  const got = await http(base, 'GET', `/api/sessions/${created.body.session_id}`);
  expect(got.status).toBe(200);
  expect(got.body).toMatchObject({ session_id: created.body.session_id, status: created.body.status, agent_state: 'idle', model: 'scripted/echo' });
  const listed = await http(base, 'GET', '/api/sessions?limit=50');
  expect(listed.body.sessions.find((s: { session_id: string }) => s.session_id === created.body.session_id)?.status).toBe('active');
});

test('a model whose provider has no key is refused at creation exactly as the model command refuses it', async () => {
  const before = await http(base, 'GET', '/api/sessions?limit=100');
  const refusedCreate = await http(base, 'POST', '/api/sessions', { project_path: project, model: 'anthropic/claude-sonnet-4-5' });

  const session = await http(base, 'POST', '/api/sessions', { project_path: project });
  const refusedSwitch = await http(base, 'POST', `/api/sessions/${session.body.session_id}/model`, { provider: 'anthropic', model_id: 'claude-sonnet-4-5' });

  expect(refusedSwitch.status).toBe(400);
  expect(refusedSwitch.body.error.code).toBe('UNKNOWN_MODEL');
  expect(refusedCreate.status).toBe(refusedSwitch.status);
  expect(refusedCreate.body).toEqual(refusedSwitch.body);
  expect(refusedCreate.body.error.message).toMatch(/provider "anthropic" is not configured/);
  // Nothing was created by the refused request: only the second session is new.
  const after = await http(base, 'GET', '/api/sessions?limit=100');
  expect(after.body.sessions.length).toBe(before.body.sessions.length + 1);

  // A model of a usable provider is accepted, and the session runs on it.
  const usable = await http(base, 'POST', '/api/sessions', { project_path: project, model: 'scripted/slow' });
  expect(usable.status).toBe(201);
  expect((await http(base, 'GET', `/api/sessions/${usable.body.session_id}`)).body.model).toBe('scripted/slow');
});

test("a dormant session's view is what its workflow comes back with, for a record stored before the model was stored once", async () => {
  // As the gateway wrote sessions before: the model as a key of its own, approval choices in config.
  const { session_id } = await store.create({ title: 'legacy', metadata: { project_path: project, model: 'scripted/slow', config: { approval_timeout_s: 30 } } });
  const dormant = await http(base, 'GET', `/api/sessions/${session_id}`);
  expect(dormant.body).toMatchObject({ status: 'dormant', model: 'scripted/slow', thinking_level: 'off', project_path: project });

  expect((await http(base, 'POST', `/api/sessions/${session_id}/resume`)).status).toBe(200);
  const active = await http(base, 'GET', `/api/sessions/${session_id}`);
  expect(active.body.status).toBe('active');
  const fields = (v: Record<string, unknown>) => ({ model: v.model, thinking_level: v.thinking_level, project_path: v.project_path });
  expect(fields(active.body)).toEqual(fields(dormant.body));
});

test('a session stored with a model no worker can run ends its turn with the reason, not a stack trace', async () => {
  // Made before creation checked models (or on a gateway whose keys differ from the worker's).
  const { session_id } = await store.create({ title: 'unrunnable', metadata: { project_path: project, model: 'anthropic/claude-sonnet-4-5' } });
  const sse = await openSse(`${base}/api/sessions/${session_id}/events`);
  try {
    const logged = stack.output.length;
    const accepted = await http(base, 'POST', `/api/sessions/${session_id}/prompt`, { text: 'hello' });
    expect(accepted.status).toBe(202);
    const events = await readUntil(sse, (e) => e.event === 'turn.finished', 60_000);
    const error = events.find((e) => e.event === 'error');
    expect(error && JSON.parse(error.data).message).toMatch(/no provider "anthropic" is configured/);
    // The worker used to log the failure as a warning with two stack traces (~50 lines) on every such turn.
    const workerLines = stack.output.slice(logged).filter((l) => l.startsWith('[worker'));
    expect(workerLines.filter((l) => /^\[worker[^\]]*\]\s+at /.test(l))).toEqual([]);
    expect(workerLines.filter((l) => l.includes('Activity failed'))).toEqual([]);
  } finally {
    sse.close();
  }
});
