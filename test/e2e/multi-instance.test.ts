import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { connect, type NatsConnection } from 'nats';
import { StoreClient } from '../../contracts/session-store/client';
import { turnWorkflowId } from '../../contracts/workflow-ids';
import { openSse, readUntil, type SseConnection, type SseEvent } from '../harness/sse-client';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';
import { workerRunning, workerThatLastRan } from '../harness/worker-of-activity';

/**
 * Two gateways, two workers and two stores (the store's jetstream adapter) on one Temporal and one
 * NATS, as `npm start -- --gateways 2 --workers 2 --stores 2` runs them (docs/multi-instance.md). One
 * instance of each kind is killed with SIGKILL in the middle of a streamed answer and is not
 * restarted before the turn ends: the client, the turn and the store must not notice more than a
 * retry notice (a retried model step continues the answer). Outcomes only; how long a failover takes
 * is not this test's business.
 */
let stack: TestStack;
let temporal: Connection;
let client: Client;
let nc: NatsConnection;
let store: StoreClient;
/** Every session the tests made, with the answer it holds; both stores must serve all of them. */
const answers = new Map<string, string>();

const MODEL_STEP = 'streamModelStep';
const words = (tag: string) => Array.from({ length: 60 }, (_, i) => `${tag}${i}`).join(' ');

beforeAll(async () => {
  stack = await startTestStack({ STRAND_SCRIPTED_DELTA_DELAY_MS: '50' }, { instances: { gateway: 2, worker: 2, store: 2 } });
  temporal = await Connection.connect({ address: stack.urls.temporal });
  client = new Client({ connection: temporal });
  nc = await connect({ servers: stack.urls.nats });
  store = new StoreClient(nc);
}, 300_000);

afterAll(async () => {
  await nc?.close();
  await temporal?.close();
  await stack?.teardown();
}, 60_000);

function gateways(): [string, string] {
  const [a, b] = stack.urls.gateways;
  return [a!, b!];
}

async function newSession(base: string): Promise<string> {
  const created = await http(base, 'POST', '/api/sessions', { project_path: '/tmp/strand-e2e-multi' });
  expect(created.status).toBe(201);
  return created.body.session_id as string;
}

/** Opens the session's events on `base`, sends the prompt there, and reads until the 8th delta. */
async function startTurn(base: string, sid: string, text: string): Promise<{ events: SseConnection; before: SseEvent[] }> {
  const events = await openSse(`${base}/api/sessions/${sid}/events`);
  expect((await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text })).status).toBe(202);
  answers.set(sid, `You said: ${text}`);
  let deltas = 0;
  const before = await readUntil(events, (e) => e.event === 'message.delta' && ++deltas === 8);
  return { events, before };
}

/** What a client keeps of the answer: the deltas after the step's last `stream.reset`. */
function keptText(events: SseEvent[]): string {
  const reset = events.map((e) => e.event).lastIndexOf('stream.reset');
  return events.slice(reset + 1).filter((e) => e.event === 'message.delta').map((e) => JSON.parse(e.data).content).join('');
}

/** The turn ended once, done, and the store holds its two messages once each, with exactly the answer. */
async function expectFinishedOnce(base: string, sid: string, all: SseEvent[]): Promise<void> {
  expect(JSON.parse(all.at(-1)!.data)).toEqual({ type: 'turn.finished', turn_id: 't1', outcome: 'done' });
  expect(all.filter((e) => e.event === 'turn.finished')).toHaveLength(1);
  expect(all.filter((e) => e.event === 'message.done')).toHaveLength(1);
  expect(keptText(all)).toBe(answers.get(sid));
  const stored = (await http(base, 'GET', `/api/sessions/${sid}/messages`)).body.messages;
  expect(stored.map((m: any) => m.entry_id)).toEqual(['t1:user', 't1:s0:assistant']);
  expect(stored[1].message.content).toEqual([{ type: 'text', text: answers.get(sid) }]);
}

/** Everything a client that has lost its connection still gets: what had already arrived. */
async function drain(conn: SseConnection): Promise<SseEvent[]> {
  const got: SseEvent[] = [];
  for (;;) {
    try {
      const e = await conn.next(10_000);
      if (!e) return got;
      got.push(e);
    } catch {
      return got;
    }
  }
}

const workerOfModelStep = (turn: WorkflowHandle) => workerRunning(stack, turn, MODEL_STEP);
const workerThatFinishedModelStep = (turn: WorkflowHandle) => workerThatLastRan(stack, turn, MODEL_STEP);

test('a session made through gateway A is used through gateway B: prompt, events, messages', async () => {
  const [a, b] = gateways();
  expect(a).not.toBe(b);
  const sid = await newSession(a);
  const { events, before } = await startTurn(b, sid, words('across'));
  const after = await readUntil(events, (e) => e.event === 'turn.finished', 60_000);
  events.close();
  await expectFinishedOnce(b, sid, [...before, ...after]);
  expect((await http(a, 'GET', `/api/sessions/${sid}/messages`)).body).toEqual((await http(b, 'GET', `/api/sessions/${sid}/messages`)).body);
  const viaB = await http(b, 'GET', `/api/sessions/${sid}`);
  expect(viaB.status).toBe(200);
  expect(viaB.body).toMatchObject({ session_id: sid, message_count: 2 });
  expect((await http(b, 'GET', '/api/sessions')).body.sessions.map((s: any) => s.session_id)).toContain(sid);
}, 120_000);

test('gateway A killed mid-stream: the client resumes on gateway B from its cursor, with no gap and no duplicate', async () => {
  const [a, b] = gateways();
  const sid = await newSession(a);
  const { events: onA, before } = await startTurn(a, sid, words('failover'));
  await stack.process('gateway').kill();
  // What reached the client before its connection broke is the client's; its cursor is the last id.
  const received = [...before, ...(await drain(onA))];
  expect(received.some((e) => e.event === 'turn.finished')).toBe(false);
  const onB = await openSse(`${b}/api/sessions/${sid}/events`, { lastEventId: received.at(-1)!.id });
  const after = await readUntil(onB, (e) => e.event === 'turn.finished', 60_000);
  onB.close();
  expect(after.some((e) => e.event === 'message.delta')).toBe(true);
  const all = [...received, ...after];
  const ids = all.map((e) => Number(e.id));
  expect(new Set(ids).size).toBe(ids.length);
  // A client reading the session from its start (through B) gets the same events under the same ids.
  const replay = await openSse(`${b}/api/sessions/${sid}/events?after=0`);
  const everything = (await readUntil(replay, (e) => e.event === 'turn.finished', 30_000)).filter((e) => Number(e.id) >= ids[0]!);
  replay.close();
  expect(all.map((e) => `${e.id} ${e.event} ${e.data}`)).toEqual(everything.map((e) => `${e.id} ${e.event} ${e.data}`));
  await expectFinishedOnce(b, sid, all);
  await stack.restart('gateway');
  expect((await http(a, 'GET', `/api/sessions/${sid}/messages`)).body.messages).toHaveLength(2);
}, 180_000);

test('the worker running the model step killed: the turn finishes once on the other worker, not restarted meanwhile', async () => {
  const [, b] = gateways();
  const sid = await newSession(b);
  const { events, before } = await startTurn(b, sid, words('worker'));
  const turn = client.workflow.getHandle(turnWorkflowId(sid, 1));
  const running = await workerOfModelStep(turn);
  const survivor = stack.instances('worker').find((name) => name !== running)!;
  await stack.process(running).kill();
  const after = await readUntil(events, (e) => e.event === 'turn.finished', 150_000);
  events.close();
  const all = [...before, ...after];
  // The retried step continues the answer from the published text: no reset, the deltas simply join.
  expect(after.some((e) => e.event === 'stream.reset')).toBe(false);
  // The survivor's crash watch took the step over (services/worker/crash-watch/), not Temporal's heartbeat timeout.
  const retries = after.filter((e) => e.event === 'retry').map((e) => JSON.parse(e.data).reason as string);
  expect(retries).toEqual([expect.stringMatching(/^the worker running this streamModelStep \(.+\) died$/)]);
  await expectFinishedOnce(b, sid, all);
  expect(stack.process(running).running).toBe(false);
  expect(await workerThatFinishedModelStep(turn)).toBe(survivor);
  await stack.restart(running);
}, 240_000);

test('a store instance killed mid-turn is invisible: the turn finishes, nothing is lost or doubled, reads keep working', async () => {
  const [a, b] = gateways();
  const sid = await newSession(a);
  const { events, before } = await startTurn(a, sid, words('store'));
  await stack.process('store').kill();
  for (const base of [a, b]) {
    const page = await http(base, 'GET', `/api/sessions/${sid}/messages`);
    expect(page.status).toBe(200);
    // The answer is recorded when its step ends, which may already have happened.
    const ids = page.body.messages.map((m: any) => m.entry_id);
    expect(ids).toEqual(['t1:user', 't1:s0:assistant'].slice(0, Math.max(1, ids.length)));
  }
  const after = await readUntil(events, (e) => e.event === 'turn.finished', 90_000);
  events.close();
  await expectFinishedOnce(a, sid, [...before, ...after]);
  await expectFinishedOnce(b, sid, [...before, ...after]);
}, 180_000);

test('each store instance alone serves every session with the same data, including what was written while it was down', async () => {
  /** What the store instances now up answer for every session the tests made. */
  const read = async () => {
    const listed = (await store.list({ limit: 500 })).sessions.map((s) => s.session_id);
    const sessions: Record<string, unknown> = {};
    for (const sid of answers.keys()) {
      const page = await store.messages({ session_id: sid, limit: 500 });
      sessions[sid] = { listed: listed.includes(sid), count: (await store.get({ session_id: sid }))?.meta.message_count, messages: page?.messages };
    }
    return sessions;
  };
  // The previous test left the first store down: the second answers alone.
  await stack.process('store').kill();
  const fromSecond = await read();
  await stack.restart('store');
  await stack.process('store#2').kill();
  const fromFirst = await read();
  await stack.restart('store#2');
  expect(Object.keys(fromSecond)).toHaveLength(4);
  expect(fromFirst).toEqual(fromSecond);
  for (const [sid, text] of answers) {
    expect(fromFirst[sid]).toMatchObject({ listed: true, count: 2 });
    const messages = (fromFirst[sid] as { messages: { entry_id: string; message: { content: unknown } }[] }).messages;
    expect(messages.map((m) => m.entry_id)).toEqual(['t1:user', 't1:s0:assistant']);
    expect(messages[1]!.message.content).toEqual([{ type: 'text', text }]);
  }
}, 180_000);
