import pino from 'pino';
import type { NatsConnection } from 'nats';
import { StoreClient } from '../../contracts/session-store/client';
import type { Message } from '../../contracts/session-store/schemas';
import { connectNats } from '../../services/common/nats';
import { startStoreService, type RunningStore } from '../../services/session-store/service';
import { startTestNatsCluster, type TestNatsCluster, type TestNatsNode } from '../harness/nats-cluster';

/**
 * Two store instances (jetstream adapter, 3 replicas) on a real 3-node NATS cluster, as the clustered
 * compose stack runs them. The node leading the sessions stream is SIGKILLed in the middle of a run of
 * writes and reads sent through NATS (each answered by either instance): the store must answer again
 * within a bound — a new leader is elected in seconds, and the store must follow it, not wait on
 * what lived on the dead node — and every write must land exactly once.
 */
jest.setTimeout(180_000);

const STREAM = 'LEADER_KILL_SESSIONS';
/**
 * From the kill to answers again, and the longest silence after: JetStream's election of a new
 * stream leader takes a few seconds (more on a loaded machine). Before the fix the store stayed
 * silent for 30–90 s (its tail waited for heartbeats it would never get, then backed off 30 s).
 */
const ANSWERS_AGAIN_WITHIN_MS = 15_000;

let cluster: TestNatsCluster;
const connections: NatsConnection[] = [];
const stores: RunningStore[] = [];

beforeAll(async () => {
  cluster = await startTestNatsCluster(3);
});

afterAll(async () => {
  for (const s of stores) await s.stop().catch(() => undefined);
  for (const c of connections) await c.close().catch(() => undefined);
  await cluster?.stop();
});

async function connection(name: string): Promise<NatsConnection> {
  const c = await connectNats(cluster.url, name);
  connections.push(c);
  return c;
}

/**
 * The node to kill: the stream's leader if it also keeps a consumer of the stores (each instance's
 * tail is a one-replica consumer, on one node the server picks among the stream's three), else the
 * node keeping most of them. Killing a node that keeps none exercises only the election.
 */
async function pickVictim(): Promise<TestNatsNode> {
  const leader = await cluster.leaderOf(STREAM);
  const consumers = await cluster.consumersByNode(STREAM);
  if (consumers.get(leader)! > 0) return leader;
  return [...consumers.entries()].sort((a, b) => b[1] - a[1])[0]![0];
}

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }], timestamp: 1 });

test('SIGKILL of the sessions stream leader: the store answers again within the bound, and every write lands once', async () => {
  for (const name of ['store-a', 'store-b']) {
    stores.push(
      await startStoreService({
        nc: await connection(name),
        config: { adapter: { name: 'jetstream', config: { stream: STREAM, replicas: 3 } }, default_list_limit: 50, max_list_limit: 500 },
        log: pino({ level: 'silent' }),
      }),
    );
  }
  const client = new StoreClient(await connection('client'));
  const { session_id } = await client.create({ title: 'through a leader change' });

  // Each step: one write, then reads that must see it, answered by whichever instance NATS picks.
  // A step whose request fails (the store timed out or answered session/storage) is sent again, as
  // the worker's activity retries: entry ids are deterministic, so a retry never writes twice. A read
  // that finds no session (null) is no answer either: for a few seconds after the election an
  // instance can still answer so for this existing session (a known gap, bench/README.md "chaos on
  // the cluster"); it counts as silence, which the bound below limits.
  const answered: number[] = [];
  const retry = async <T>(call: () => Promise<T>): Promise<NonNullable<T>> => {
    for (;;) {
      try {
        const value = await call();
        if (value !== null && value !== undefined) {
          answered.push(Date.now());
          return value;
        }
      } catch {
        // sent again below
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const STEPS = 30;
  const KILL_AT = 8;
  let killedAt = 0;
  let victim: TestNatsNode | undefined;
  for (let i = 1; i <= STEPS; i++) {
    if (i === KILL_AT) {
      victim = await pickVictim();
      killedAt = Date.now();
      await victim.kill();
    }
    await retry(() => client.append({ session_id, entry_id: `t${i}:user`, message: user(`message ${i}`) }));
    for (let r = 0; r < 3; r++) {
      const page = await retry(() => client.messages({ session_id, limit: 500 }));
      expect(page.messages.map((m) => m.entry_id)).toContain(`t${i}:user`);
    }
  }

  const afterKill = answered.filter((t) => t >= killedAt);
  const firstAnswer = afterKill[0]! - killedAt;
  let longestSilence = firstAnswer;
  for (let k = 1; k < afterKill.length; k++) longestSilence = Math.max(longestSilence, afterKill[k]! - afterKill[k - 1]!);
  console.log(`killed ${victim!.name}: first answer ${firstAnswer} ms after the kill, longest silence after it ${longestSilence} ms`);
  expect(longestSilence).toBeLessThanOrEqual(ANSWERS_AGAIN_WITHIN_MS);

  // Every write landed once, in order, as both instances see it.
  for (let r = 0; r < 4; r++) {
    const page = await retry(() => client.messages({ session_id, limit: 500 }));
    expect(page.messages.map((m) => m.entry_id)).toEqual(Array.from({ length: STEPS }, (_, k) => `t${k + 1}:user`));
  }
});
