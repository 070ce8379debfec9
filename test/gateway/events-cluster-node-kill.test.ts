import { connect, type NatsConnection } from 'nats';
import { AGENT_EVENTS_STREAM, agentEventSubject } from '../../contracts/agent-event-stream';
import { ClientText } from '../../bench/chaos/client-text';
import { startTestNatsCluster, type TestNatsCluster, type TestNatsNode } from '../harness/nats-cluster';
import { followSse } from '../harness/resuming-sse-client';
import { openSse, readUntil, type SseEvent } from '../harness/sse-client';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * A gateway follows a session's events on a real three-node NATS cluster (every stream in three
 * replicas), as the clustered compose stack runs it. The gateway reads the events stream through
 * one-replica consumers, each kept by one node; the node keeping the gateway's consumer is SIGKILLed in
 * the middle of a streamed answer. The client following the session over SSE must get the rest of
 * the answer, exactly, and `turn.finished` soon after the stream holds it — not half a minute later,
 * when nats.js's own timers would notice the consumer is gone — and a replay of the session through
 * the gateway must show the whole turn.
 */
jest.setTimeout(360_000);

/**
 * From the moment the stream holds `turn.finished` to the moment the client has it. The gateway
 * notices a dead consumer by its missed heartbeats (a few seconds) or by its connection moving to
 * another node; before the fix it waited for its 30 s pull to expire.
 */
const CLIENT_LAG_MAX_MS = 15_000;

let cluster: TestNatsCluster;
let stack: TestStack;
let nc: NatsConnection;

beforeAll(async () => {
  cluster = await startTestNatsCluster(3);
  stack = await startTestStack({ STRAND_NATS_URL: cluster.url, STRAND_NATS_REPLICAS: '3', STRAND_SCRIPTED_DELTA_DELAY_MS: '50' });
  nc = await connect({ servers: cluster.url.split(','), maxReconnectAttempts: -1, reconnectTimeWait: 250, pingInterval: 2_000 });
}, 240_000);

afterAll(async () => {
  await nc?.close().catch(() => undefined);
  await stack?.teardown();
  await cluster?.stop();
}, 60_000);

/** The node keeping most of the events stream's consumers (the gateway's live read; there is no other reader). */
async function nodeOfGatewayConsumer(): Promise<TestNatsNode> {
  const counts = await cluster.consumersByNode(AGENT_EVENTS_STREAM);
  const [node, count] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]!;
  expect(count).toBeGreaterThan(0);
  return node;
}

/** Whether the events stream holds the session's `turn.finished` of `turnId` (read by sequence, not through a consumer). */
function streamFinishWatcher(sid: string, turnId: string): () => Promise<boolean> {
  let checked = 0;
  const subject = agentEventSubject(sid);
  return async () => {
    try {
      const jsm = await nc.jetstreamManager({ timeout: 2_000 });
      const last = (await jsm.streams.info(AGENT_EVENTS_STREAM)).state.last_seq;
      for (let seq = checked + 1; seq <= last; seq++) {
        const m = await jsm.streams.getMessage(AGENT_EVENTS_STREAM, { seq });
        checked = seq;
        if (m.subject !== subject) continue;
        const event = m.json<{ event: { type: string; turn_id?: string } }>().event;
        if (event.type === 'turn.finished' && event.turn_id === turnId) return true;
      }
    } catch {
      // The cluster is electing a leader: asked again at the next poll.
    }
    return false;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('kill -9 of the node keeping the gateway’s consumer mid-answer: the SSE client gets the rest and turn.finished, a replay shows the whole turn', async () => {
  const base = stack.urls.gateway;
  const sid = (await http(base, 'POST', '/api/sessions', { project_path: '/tmp/strand-events-cluster' })).body.session_id as string;
  const text = Array.from({ length: 160 }, (_, i) => `word${i}`).join(' ');
  const answer = `You said: ${text}`;

  const events: SseEvent[] = [];
  const client = new ClientText();
  let deltas = 0;
  let killed: Promise<{ node: TestNatsNode; at: number }> | undefined;
  let clientFinishedAt = 0;
  const sse = followSse(`${base}/api/sessions/${sid}/events`, (e) => {
    events.push(e);
    client.apply(e.event, JSON.parse(e.data));
    if (e.event === 'message.delta' && ++deltas === 15) {
      killed = (async () => {
        const node = await nodeOfGatewayConsumer();
        const at = Date.now();
        await node.kill();
        return { node, at };
      })();
    }
    if (e.event === 'turn.finished' && !clientFinishedAt) clientFinishedAt = Date.now();
  }, { after: '0' });
  await sse.connected;
  expect((await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text })).status).toBe(202);

  // When the stream holds the turn's end, and when the client got it.
  const stored = streamFinishWatcher(sid, 't1');
  let storedAt = 0;
  const deadline = Date.now() + 180_000;
  while ((!storedAt || !clientFinishedAt) && Date.now() < deadline) {
    if (!storedAt && killed && (await stored())) storedAt = Date.now();
    await sleep(200);
  }
  const { node, at } = await killed!;
  console.log(`killed ${node.name}; the stream had turn.finished ${storedAt - at} ms after the kill, the client ${clientFinishedAt - at} ms after it`);
  expect(storedAt).toBeGreaterThan(0);
  expect(clientFinishedAt).toBeGreaterThan(0);
  expect(clientFinishedAt - storedAt).toBeLessThanOrEqual(CLIENT_LAG_MAX_MS);

  // The client's text is exact: nothing lost, nothing doubled, one turn.finished.
  expect(client.texts('t1').join('')).toBe(answer);
  expect(events.filter((e) => e.event === 'turn.finished').map((e) => JSON.parse(e.data))).toEqual([{ type: 'turn.finished', turn_id: 't1', outcome: 'done' }]);
  const ids = events.map((e) => e.id).filter(Boolean);
  expect(new Set(ids).size).toBe(ids.length);

  // A replay of the whole session through the gateway shows the turn to its end.
  const replay = await openSse(`${base}/api/sessions/${sid}/events`, { lastEventId: '0' });
  const replayed = await readUntil(replay, (e) => e.event === 'turn.finished', 20_000);
  replay.close();
  const replayText = new ClientText();
  for (const e of replayed) replayText.apply(e.event, JSON.parse(e.data));
  expect(replayText.texts('t1').join('')).toBe(answer);

  // The live client still follows the session: the next turn reaches it.
  const before = events.length;
  expect((await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: 'again' })).status).toBe(202);
  for (let i = 0; i < 300 && !events.slice(before).some((e) => e.event === 'turn.finished'); i++) await sleep(100);
  sse.close();
  expect(events.slice(before).filter((e) => e.event === 'turn.finished').map((e) => JSON.parse(e.data))).toEqual([{ type: 'turn.finished', turn_id: 't2', outcome: 'done' }]);

  await node.start();
});
