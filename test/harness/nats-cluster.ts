import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect } from 'nats';
import { binaryPaths } from '../../infra/bootstrap/paths';
import { freePort, waitForTcp } from '../../infra/stack/free-port';
import { ManagedProcess } from '../../infra/stack/managed-process';

/** Every node's settings: those of the clustered compose stack's nodes (pings every 2 s; the file says why). */
const NATS_NODE_CONF = path.join(__dirname, '../../infra/compose/cluster/nats-node.conf');

/** One node of a TestNatsCluster. */
export interface TestNatsNode {
  /** The server name JetStream reports (stream info's `cluster.leader`). */
  name: string;
  url: string;
  /** SIGKILL, as a crash: its store dir is kept. */
  kill(): Promise<void>;
  /** Starts it again on the same ports and store dir, and waits until it listens. */
  start(): Promise<void>;
  /**
   * SIGSTOP / SIGCONT: the node keeps its sockets open but answers nothing, as a node cut off the
   * network does (its peers and clients see silence, not a closed connection).
   */
  freeze(): void;
  thaw(): void;
}

/** Three real nats-servers with JetStream, routed to each other on loopback: one JetStream cluster. */
export interface TestNatsCluster {
  nodes: TestNatsNode[];
  /** Every node's client URL, comma-separated (as STRAND_NATS_URL lists a cluster). */
  url: string;
  /** The node leading `stream` now (asked through any node that answers). */
  leaderOf(stream: string): Promise<TestNatsNode>;
  /** For each node, how many of `stream`'s consumers it leads (an R1 consumer lives on one node). */
  consumersByNode(stream: string): Promise<Map<TestNatsNode, number>>;
  stop(): Promise<void>;
}

export async function startTestNatsCluster(size = 3): Promise<TestNatsCluster> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-nats-cluster-'));
  const ports = [];
  for (let i = 0; i < size; i++) ports.push({ client: await freePort(), route: await freePort() });
  const routes = ports.map((p) => `nats://127.0.0.1:${p.route}`).join(',');
  const procs: ManagedProcess[] = [];
  const nodes: TestNatsNode[] = ports.map((p, i) => {
    const name = `n${i + 1}`;
    const dir = path.join(base, name);
    fs.mkdirSync(dir);
    const spec = {
      name: `nats-${name}`,
      command: binaryPaths().natsServer,
      args: ['-c', NATS_NODE_CONF, '-a', '127.0.0.1', '-p', String(p.client), '-js', '-sd', dir, '-n', name, '--cluster_name', 'strand-test', '--cluster', `nats://127.0.0.1:${p.route}`, '--routes', routes],
    };
    const start = async () => {
      procs[i] = new ManagedProcess(spec, () => undefined);
      procs[i]!.start();
      await waitForTcp('127.0.0.1', p.client, 15_000, () => procs[i]!.deathReason());
    };
    // ManagedProcess.signal ignores a process that is gone (stop() thaws every node, killed ones too).
    return { name, url: `nats://127.0.0.1:${p.client}`, start, kill: () => procs[i]!.kill(), freeze: () => procs[i]!.signal('SIGSTOP'), thaw: () => procs[i]!.signal('SIGCONT') };
  });
  await Promise.all(nodes.map((n) => n.start()));
  const url = nodes.map((n) => n.url).join(',');

  // Ready once JetStream has a meta leader that knows every node (asking earlier fails).
  const deadline = Date.now() + 30_000;
  const nc = await connect({ servers: url.split(','), maxReconnectAttempts: -1 });
  try {
    for (;;) {
      try {
        const jsm = await nc.jetstreamManager({ timeout: 2_000 });
        await jsm.getAccountInfo();
        break;
      } catch (err) {
        if (Date.now() > deadline) throw new Error(`the NATS cluster has no JetStream meta leader after 30 s: ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  } finally {
    await nc.close();
  }

  return {
    nodes,
    url,
    async leaderOf(stream) {
      const c = await connect({ servers: url.split(',') });
      try {
        const info = await (await c.jetstreamManager({ timeout: 2_000 })).streams.info(stream);
        const node = nodes.find((n) => n.name === info.cluster?.leader);
        if (!node) throw new Error(`stream ${stream} has no leader (cluster info: ${JSON.stringify(info.cluster)})`);
        return node;
      } finally {
        await c.close();
      }
    },
    async consumersByNode(stream) {
      const c = await connect({ servers: url.split(',') });
      try {
        const jsm = await c.jetstreamManager({ timeout: 2_000 });
        const counts = new Map(nodes.map((n) => [n, 0]));
        for (const ci of await jsm.consumers.list(stream).next()) {
          const node = nodes.find((n) => n.name === ci.cluster?.leader);
          if (node) counts.set(node, counts.get(node)! + 1);
        }
        return counts;
      } finally {
        await c.close();
      }
    },
    async stop() {
      for (const n of nodes) n.thaw();
      await Promise.all(procs.map((p) => p.stop()));
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
}
