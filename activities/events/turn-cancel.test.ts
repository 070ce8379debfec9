import { connect, type NatsConnection } from 'nats';
import { startTestNats, type TestNats } from '../../test/harness/nats-server';
import { createNatsTurnCancelChannel } from './turn-cancel';

/**
 * The abort fast path on a real nats-server: a worker's one subscription reaches exactly the watches
 * of the aborted turn, announced from another connection (the turn's worker may be another one), and
 * a watch that stopped hears nothing.
 */
let nats: TestNats;
const connections: NatsConnection[] = [];
beforeAll(async () => {
  nats = await startTestNats();
});
afterAll(async () => {
  await Promise.all(connections.map((c) => c.close().catch(() => undefined)));
  await nats.stop();
});

async function channel() {
  const nc = await connect({ servers: nats.url });
  connections.push(nc);
  const ch = createNatsTurnCancelChannel(nc);
  await nc.flush(); // the subscription is known to the server
  return ch;
}

test('an abort reaches the watches of its turn only, across connections; a stopped watch hears nothing', async () => {
  const worker = await channel();
  const announcer = await channel();
  const heard: string[] = [];
  let stepHeard!: () => void;
  const step = new Promise<void>((r) => (stepHeard = r));
  worker.watch('s.1', 't3', () => {
    heard.push('s.1/t3 step');
    stepHeard();
  });
  worker.watch('s.1', 't3', () => heard.push('s.1/t3 tool'));
  worker.watch('s.1', 't4', () => heard.push('s.1/t4'));
  worker.watch('s2', 't3', () => heard.push('s2/t3'));
  const stopped = worker.watch('s.1', 't3', () => heard.push('s.1/t3 stopped'));
  stopped();
  await announcer.announce('s.1', 't3');
  await step;
  // Another turn's abort after it: once it is heard, everything of the first one has been delivered.
  let otherHeard!: () => void;
  const other = new Promise<void>((r) => (otherHeard = r));
  worker.watch('s3', 't1', () => otherHeard());
  await announcer.announce('s3', 't1');
  await other;
  expect(heard.sort()).toEqual(['s.1/t3 step', 's.1/t3 tool']);
});
