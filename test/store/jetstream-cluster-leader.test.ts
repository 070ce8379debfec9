import pino from 'pino';
import type { NatsConnection } from 'nats';
import { StoreClient } from '../../contracts/session-store/client';
import type { Message } from '../../contracts/session-store/schemas';
import { connectNats } from '../../services/common/nats';
import { startStoreService, type RunningStore } from '../../services/session-store/service';
import { startTestNatsCluster, type TestNatsCluster, type TestNatsNode } from '../harness/nats-cluster';

/**
 * Two store instances (jetstream adapter, 3 replicas) on a real 3-node NATS cluster, as the clustered
 * compose stack runs them. One node fails in the middle of a run of writes and reads sent through
 * NATS (each answered by either instance): SIGKILLed (the one leading the sessions stream, if it keeps
 * one of the instances' tails), or frozen with SIGSTOP (the stream's leader, with a store instance
 * connected to it: a node cut off the network looks the same). The store must answer again within a
 * bound — a new leader is elected in seconds, the store must follow it, not wait on what lived on the
 * failed node, and leave a silent node — and every write must land exactly once.
 */
jest.setTimeout(240_000);

const STREAM = 'FAULT_SESSIONS';
/**
 * The longest silence allowed after the fault: JetStream's election of a new stream leader takes a
 * few seconds (more on a loaded machine). Before the fix the store stayed silent for minutes after a
 * kill (its tail waited for heartbeats it would never get, then backed off 30 s at a time).
 */
const ANSWERS_AGAIN_WITHIN_MS = 15_000;

let cluster: TestNatsCluster | undefined;
const connections: NatsConnection[] = [];
const stores: RunningStore[] = [];

afterEach(async () => {
  for (const s of stores.splice(0)) await s.stop().catch(() => undefined);
  for (const c of connections.splice(0)) await c.close().catch(() => undefined);
  await cluster?.stop();
  cluster = undefined;
});

async function connection(name: string, url = cluster!.url): Promise<NatsConnection> {
  const c = await connectNats(url, name);
  connections.push(c);
  return c;
}

/**
 * The node to fail: the stream's leader if it also keeps a consumer of the stores (each instance's
 * tail is a one-replica consumer, on one node the server picks among the stream's three), else the
 * node keeping most of them. Failing a node that keeps none exercises only the election.
 */
async function pickVictim(c: TestNatsCluster): Promise<TestNatsNode> {
  const leader = await c.leaderOf(STREAM);
  const consumers = await c.consumersByNode(STREAM);
  if (consumers.get(leader)! > 0) return leader;
  return [...consumers.entries()].sort((a, b) => b[1] - a[1])[0]![0];
}

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }], timestamp: 1 });

const startStore = async (nc: NatsConnection) =>
  stores.push(
    await startStoreService({
      nc,
      config: { adapter: { name: 'jetstream', config: { stream: STREAM, replicas: 3 } }, default_list_limit: 50, max_list_limit: 500 },
      log: pino({ level: 'silent' }),
    }),
  );

/**
 * Where the processes connect and which node fails. `anywhere`: every connection to any node, and the
 * victim chosen by pickVictim. `connected`: the victim is the sessions stream's leader, store-a is
 * connected to it (given its URL alone; it learns the other nodes from the server, as a client of a
 * cluster does), and the client to another node than both stores when it can, so its requests are
 * routed between nodes: the victim's silence is felt by the connections that stay on it.
 */
type Placement = 'anywhere' | 'connected';

/** Runs writes and reads through `fault` (applied before step FAULT_AT); returns the silence figures. */
async function throughFault(fault: (victim: TestNatsNode) => Promise<void> | void, placement: Placement): Promise<{ victim: string; firstAnswerMs: number; longestSilenceMs: number }> {
  const c = (cluster = await startTestNatsCluster(3));
  let chosen: TestNatsNode | undefined;
  let clientNc: NatsConnection;
  if (placement === 'anywhere') {
    for (const name of ['store-a', 'store-b']) await startStore(await connection(name));
    clientNc = await connection('client');
  } else {
    const storeB = await connection('store-b');
    await startStore(storeB);
    chosen = await c.leaderOf(STREAM);
    await startStore(await connection('store-a', chosen.url));
    const others = c.nodes.filter((n) => n !== chosen);
    const apart = others.find((n) => n.name !== storeB.info?.server_name) ?? others[0]!;
    clientNc = await connection('client', apart.url);
  }
  const client = new StoreClient(clientNc);
  const { session_id } = await client.create({ title: 'through a NATS node failure' });

  // Each step: one write, then reads that must see it, answered by whichever instance NATS picks.
  // A step whose request fails (the store timed out or answered session/storage) is sent again, as
  // the worker's activity retries: entry ids are deterministic, so a retry never writes twice. A read
  // that finds no session (null) is no answer either: an instance answered so for this existing
  // session after an election before it learnt to doubt the leader's "no message" (docs/multi-instance.md,
  // "When a NATS node fails"); it would count as silence, which the bound below limits.
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
  const FAULT_AT = 8;
  let faultAt = 0;
  let victim: TestNatsNode | undefined;
  for (let i = 1; i <= STEPS; i++) {
    if (i === FAULT_AT) {
      victim = chosen ?? (await pickVictim(c));
      faultAt = Date.now();
      await fault(victim);
    }
    await retry(() => client.append({ session_id, entry_id: `t${i}:user`, message: user(`message ${i}`) }));
    for (let r = 0; r < 3; r++) {
      const page = await retry(() => client.messages({ session_id, limit: 500 }));
      expect(page.messages.map((m) => m.entry_id)).toContain(`t${i}:user`);
    }
  }

  const afterFault = answered.filter((t) => t >= faultAt);
  const firstAnswerMs = afterFault[0]! - faultAt;
  let longestSilenceMs = firstAnswerMs;
  for (let k = 1; k < afterFault.length; k++) longestSilenceMs = Math.max(longestSilenceMs, afterFault[k]! - afterFault[k - 1]!);

  // Every write landed once, in order, as both instances see it.
  for (let r = 0; r < 4; r++) {
    const page = await retry(() => client.messages({ session_id, limit: 500 }));
    expect(page.messages.map((m) => m.entry_id)).toEqual(Array.from({ length: STEPS }, (_, k) => `t${k + 1}:user`));
  }
  return { victim: victim!.name, firstAnswerMs, longestSilenceMs };
}

test('SIGKILL of the sessions stream leader: the store answers again within the bound, and every write lands once', async () => {
  const r = await throughFault((victim) => victim.kill(), 'anywhere');
  console.log(`killed ${r.victim}: first answer ${r.firstAnswerMs} ms after the kill, longest silence after it ${r.longestSilenceMs} ms`);
  expect(r.longestSilenceMs).toBeLessThanOrEqual(ANSWERS_AGAIN_WITHIN_MS);
});

test('the sessions stream leader silent (SIGSTOP, as when cut off the network) with a store connected to it: the store answers again within the bound', async () => {
  const r = await throughFault((victim) => victim.freeze(), 'connected');
  console.log(`froze ${r.victim}: first answer ${r.firstAnswerMs} ms after it, longest silence after it ${r.longestSilenceMs} ms`);
  expect(r.longestSilenceMs).toBeLessThanOrEqual(ANSWERS_AGAIN_WITHIN_MS);
});
