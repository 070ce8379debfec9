import { openSse, readUntil, type SseEvent } from '../harness/sse-client';
import { jobHasSession, startJobE2eStack, type JobE2eStack } from '../harness/job-e2e-stack';
import { EdnTestClient } from './edn-session-client';
import { EMACS_CLIENT_INFO, EMACS_TOPICS } from './edn-session-fixture';

/**
 * A job's session stream is a session's stream (docs/jobs.md, "Starting and watching a job"), on a
 * real stack: each of the job's turns is announced by the state it enters and closed by
 * `turn.finished` and the idle state, in that order around its events; a client that starts
 * watching while the job's step streams gets that step from its start, whole and once; and the
 * session's commands other than reads are refused (409 JOB_SESSION) on HTTP and EDN alike.
 */
const ALICE = 'tok-alice';
const WORDS = Array.from({ length: 40 }, (_, i) => `w${i} `);
let js: JobE2eStack;
const edn: EdnTestClient[] = [];

beforeAll(async () => {
  js = await startJobE2eStack('strand-job-stream', { STRAND_TOKENS: `${ALICE}:alice`, STRAND_SCRIPTED_DELTA_DELAY_MS: '5' });
  js.script('job-two-steps', [
    [{ type: 'text', text: 'Writing it.' }, { type: 'tool_call', name: 'write_file', args: { path: 'notes.txt', content: 'noted\n' } }],
    [{ type: 'text', text: 'Wrote notes.txt.' }],
  ]);
  // 150 ms a word: a watcher joins while the step streams.
  js.script('job-slow-step', [[...WORDS.flatMap((w): unknown[] => [{ type: 'text', text: [w] }, { type: 'delay', ms: 150 }]), { type: 'text', text: 'the end.' }]]);
  js.script('job-stall', [[{ type: 'text', text: 'Thinking hard.' }, { type: 'stall' }]]);
  // A step long enough to be steered while it streams; it answers the last user text (the prompt, or
  // the steering: a model's step after steering is its first since that user message).
  js.script('job-steered', [[{ type: 'text', text: 'Heard: {{user}}' }, { type: 'delay', ms: 3_000 }, { type: 'text', text: '.' }]]);
}, 180_000);

afterAll(async () => {
  for (const c of edn) c.close();
  await js?.teardown();
}, 60_000);

const eventsUrl = (id: string, query = '') => `${js.stack.urls.gateway}/api/sessions/job-${id}/events${query}`;
const auth = { headers: { Authorization: `Bearer ${ALICE}` } };
const data = (e: SseEvent) => JSON.parse(e.data) as Record<string, any>;
const isIdle = (e: SseEvent) => e.event === 'agent.state' && data(e).state === 'idle';

test("each of a job's turns on its session's stream: the state it enters, its events, turn.finished, then idle", async () => {
  const id = await js.startJob(ALICE, js.spec('job-two-steps'));
  await js.jobUntil(ALICE, id, jobHasSession);
  const sse = await openSse(eventsUrl(id, '?after=0'), auth);
  let seen: SseEvent[];
  try {
    expect(sse.status).toBe(200);
    seen = await readUntil(sse, isIdle, 90_000);
  } finally {
    sse.close();
  }
  const kinds = seen.map((e) => (e.event === 'agent.state' ? `state:${data(e).state}` : e.event));
  // The turn's events: its answer streamed, the call and its result, between the opening state and turn.finished.
  const first = kinds.findIndex((k) => !k.startsWith('state:'));
  const finished = kinds.indexOf('turn.finished');
  expect(kinds[0]).toMatch(/^state:(?!idle)/);
  expect(first).toBeGreaterThan(0);
  expect(finished).toBeGreaterThan(first);
  expect(kinds.slice(first, finished)).toEqual(expect.arrayContaining(['message.delta', 'tool.call', 'tool.result']));
  expect(kinds.slice(finished)).toEqual(['turn.finished', 'state:idle']);
  expect(data(seen[finished]!)).toMatchObject({ turn_id: 't1', outcome: 'done' });
  // No idle while the turn ran; the text streamed whole.
  expect(kinds.slice(0, finished)).not.toContain('state:idle');
  expect(seen.filter((e) => e.event === 'message.delta').map((e) => data(e).content).join('')).toBe('Writing it.Wrote notes.txt.');
  expect((await js.jobUntil(ALICE, id, (v) => v.status !== 'running')).status).toBe('succeeded');
}, 150_000);

test("a client that starts watching while a job's step streams gets that step from its start, whole and once", async () => {
  const id = await js.startJob(ALICE, js.spec('job-slow-step'));
  await js.jobUntil(ALICE, id, jobHasSession);
  // A first client follows from the start, to know the step is under way.
  const early = await openSse(eventsUrl(id, '?after=0'), auth);
  const late = await (async () => {
    try {
      let deltas = 0;
      await readUntil(early, (e) => e.event === 'message.delta' && ++deltas >= 5, 60_000);
      // The late client: no cursor, so the stream begins where the running turn began.
      return await openSse(eventsUrl(id), auth);
    } finally {
      early.close();
    }
  })();
  let seen: SseEvent[];
  try {
    expect(late.status).toBe(200);
    seen = await readUntil(late, (e) => e.event === 'turn.finished', 90_000);
  } finally {
    late.close();
  }
  const text = seen.filter((e) => e.event === 'message.delta').map((e) => data(e).content).join('');
  expect(text).toBe(`${WORDS.join('')}the end.`);
  // Each event once: no sequence twice.
  const ids = seen.map((e) => e.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(seen[0]!.event).toBe('agent.state');
}, 150_000);

test("a job's session refuses the session's commands (409 JOB_SESSION, naming the job) on HTTP and EDN; reads stay allowed", async () => {
  const id = await js.startJob(ALICE, js.spec('job-stall'));
  await js.jobUntil(ALICE, id, jobHasSession);
  const session = `/api/sessions/job-${id}`;
  const refusals = [
    await js.as(ALICE, 'PATCH', `${session}/settings`, { auto_retry: false }),
    await js.as(ALICE, 'POST', `${session}/compact`, {}),
    await js.as(ALICE, 'POST', `${session}/model`, { provider: 'scripted', model_id: 'echo' }),
    await js.as(ALICE, 'PATCH', `${session}/settings`, { name: 'renamed' }),
  ];
  for (const refused of refusals) {
    expect(refused).toMatchObject({ status: 409, body: { error: { code: 'JOB_SESSION', details: { job_id: id } } } });
    expect(refused.body.error.message).toContain(`belongs to job ${id}`);
    expect(refused.body.error.message).toContain(`POST /api/jobs/${id}/cancel`);
  }
  // The settings did not change, and reads answer.
  expect((await js.as(ALICE, 'GET', `${session}/settings`)).body).toMatchObject({ auto_retry: true, model: 'scripted/job-stall' });
  expect((await js.as(ALICE, 'GET', session)).status).toBe(200);

  const c = await EdnTestClient.tcp(js.stack.urls.edn);
  edn.push(c);
  await c.request('handshake', { 'client-info': { ...EMACS_CLIENT_INFO, 'auth-token': ALICE } }, 60_000);
  await c.request('subscribe', { topics: EMACS_TOPICS });
  for (const [op, params] of [['compact', {}], ['set_model', { 'model-id': 'scripted/echo' }]] as const) {
    const refused = await c.failure(op, { 'session-id': `job-${id}`, ...params });
    expect([op, String(refused['error-message'])]).toEqual([op, expect.stringContaining(`belongs to job ${id}`)]);
  }
  expect(c.violations).toEqual([]);
  expect((await js.as(ALICE, 'POST', `/api/jobs/${id}/cancel`)).body.status).toBe('cancel_requested');
  expect((await js.jobUntil(ALICE, id, (v) => v.status !== 'running')).status).toBe('cancelled');
}, 150_000);

test("steering a job's session reaches the job's running turn: taken after its step, the next step answers it; between turns it is not delivered", async () => {
  const c = await EdnTestClient.tcp(js.stack.urls.edn);
  edn.push(c);
  await c.request('handshake', { 'client-info': { ...EMACS_CLIENT_INFO, 'auth-token': ALICE } }, 60_000);
  const id = await js.startJob(ALICE, js.spec('job-steered'));
  await js.jobUntil(ALICE, id, jobHasSession);
  const sse = await openSse(eventsUrl(id, '?after=0'), auth);
  try {
    await readUntil(sse, (e) => e.event === 'message.delta', 60_000);
    // Over HTTP, then psi's steer over EDN (a prompt with the steer behaviour): both reach the turn.
    const steered = await js.as(ALICE, 'POST', `/api/sessions/job-${id}/steer`, { text: 'also check the README' });
    expect(steered).toMatchObject({ status: 202, body: { status: 'accepted', turn_id: 't1' } });
    expect(await c.request('steer', { 'session-id': `job-${id}`, message: 'and the CHANGELOG' })).toMatchObject({ accepted: true });
    await readUntil(sse, (e) => e.event === 'turn.finished', 90_000);
  } finally {
    sse.close();
  }
  expect((await js.jobUntil(ALICE, id, (v) => v.status !== 'running')).status).toBe('succeeded');
  const messages = (await js.as(ALICE, 'GET', `/api/sessions/job-${id}/messages`)).body.messages as any[];
  const texts = messages.map((m) => [m.message.role, (m.message.content ?? []).map((c: any) => c.text ?? '').join('')]);
  const steering = texts.findIndex(([role, text]) => role === 'user' && /also check the README/.test(text));
  expect(steering).toBeGreaterThan(0);
  expect(texts.slice(steering + 1)).toEqual([
    ['user', 'and the CHANGELOG'],
    ['assistant', 'Heard: and the CHANGELOG.'],
  ]);
  expect(c.violations).toEqual([]);
  // The job has ended: nothing runs to take steering.
  const late = await js.as(ALICE, 'POST', `/api/sessions/job-${id}/steer`, { text: 'too late' });
  expect(late).toMatchObject({ status: 400, body: { error: { code: 'INVALID_REQUEST' } } });
}, 150_000);
