import { connect, type KV, type NatsConnection } from 'nats';
import { RUNNING_ACTIVITIES_BUCKET, workerPresenceSubject, type RunningActivity } from '../../contracts/worker-presence';
import { CrashWatcher, type TemporalPort } from '../../services/worker/crash-watch/crash-watcher';
import { RunningRegistry } from '../../services/worker/crash-watch/running-registry';
import { startTestNats, type TestNats } from '../harness/nats-server';

/**
 * The crash watcher against a real nats-server, with Temporal played by a fake whose heartbeat marks
 * the test controls: a worker is judged dead only when its presence has no responder AND its activity's
 * heartbeat stopped; of two survivors, one acts.
 */
let nats: TestNats;
let nc: NatsConnection;
let kv: KV;

beforeAll(async () => {
  nats = await startTestNats();
  nc = await connect({ servers: nats.url });
  kv = await nc.jetstream().views.kv(RUNNING_ACTIVITIES_BUCKET, { history: 1 });
}, 30_000);

afterAll(async () => {
  await nc?.close();
  await nats?.stop();
});

/** A worker that lists one activity and answers on its presence subject (after `answerAfterMs`) until `die`. */
async function fakeWorker(id: string, activity: string, answerAfterMs = 0) {
  const own = await connect({ servers: nats.url });
  own.subscribe(workerPresenceSubject(id), { callback: (_e, m) => (answerAfterMs ? setTimeout(() => m.respond(), answerAfterMs) : m.respond()) });
  await own.flush();
  const registry = new RunningRegistry(kv, id);
  registry.add({ task_token: Buffer.from(activity).toString('base64'), workflow_id: `wf-${activity}`, run_id: 'r1', activity_id: '1', activity_type: 'streamModelStep', attempt: 1 }, Buffer.from(activity));
  return { die: () => own.close() };
}

/** Temporal as the watcher sees it: a heartbeat mark per workflow that the test advances or freezes. */
function fakeTemporal() {
  const marks = new Map<string, number>();
  const failed: RunningActivity[] = [];
  const port: TemporalPort = {
    async heartbeatMark(entry) {
      return String(marks.get(entry.workflow_id) ?? 0);
    },
    async failOnBehalf(entry) {
      failed.push(entry);
    },
  };
  return { port, marks, failed };
}

const watcher = (selfId: string, temporal: TemporalPort) => new CrashWatcher({ nc, kv, selfId, temporal, intervalMs: 50, confirmMs: 300 });
const until = async (cond: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

test('a live worker is left alone; once its process is gone and its heartbeat stopped, one survivor fails its activity', async () => {
  const t = fakeTemporal();
  const victim = await fakeWorker('victim-1', 'a1');
  const [w1, w2] = [watcher('survivor-1', t.port), watcher('survivor-2', t.port)];
  await Promise.all([w1.start(), w2.start()]);
  await new Promise((r) => setTimeout(r, 800));
  expect(t.failed).toEqual([]);
  await victim.die();
  await until(() => t.failed.length > 0);
  await new Promise((r) => setTimeout(r, 500));
  expect(t.failed.map((e) => [e.worker_id, e.workflow_id])).toEqual([['victim-1', 'wf-a1']]);
  expect(w1.takenOver + w2.takenOver).toBe(1);
  w1.stop();
  w2.stop();
}, 30_000);

test('a worker that only lost NATS but still heartbeats to Temporal is not taken for dead', async () => {
  const t = fakeTemporal();
  const flaky = await fakeWorker('flaky-1', 'b1');
  const w = watcher('survivor-3', t.port);
  await w.start();
  await flaky.die();
  // Its heartbeats still reach Temporal every 100 ms.
  const beating = setInterval(() => t.marks.set('wf-b1', (t.marks.get('wf-b1') ?? 0) + 1), 100);
  await new Promise((r) => setTimeout(r, 1_500));
  clearInterval(beating);
  expect(t.failed).toEqual([]);
  // Then the heartbeats stop too: now it is dead.
  await until(() => t.failed.length === 1);
  w.stop();
}, 30_000);

test('a worker that answers its pings late (a long GC, a busy event loop) is not taken for dead, even with its heartbeat frozen', async () => {
  const t = fakeTemporal();
  // Its heartbeat mark never moves and every ping times out: doubt, never a verdict.
  const slow = await fakeWorker('slow-1', 'c1', 400);
  const w = new CrashWatcher({ nc, kv, selfId: 'survivor-4', temporal: t.port, intervalMs: 50, confirmMs: 300, pingTimeoutMs: 100 });
  await w.start();
  await new Promise((r) => setTimeout(r, 2_000));
  expect(t.failed).toEqual([]);
  w.stop();
  await new Promise((r) => setTimeout(r, 450)); // the last late answer
  await slow.die();
}, 30_000);
