import type { NatsConnection } from 'nats';
import { ensureAgentEventsStream } from '../../contracts/agent-event-stream';
import { ErrorCode, StrandError } from '../../contracts/errors';
import { connectNats } from '../../services/common/nats';
import { PacedEventReader } from '../../services/gateway/events/paced-event-reader';
import { startTestNats, type TestNats } from '../harness/nats-server';

/**
 * Opening a session's events while NATS cannot answer (here: its one server down, the connection
 * reconnecting) is tried again for a while, then reported as UNAVAILABLE — retryable, an
 * infrastructure fault — never as a raw NATS error (the HTTP route answered such an open 500).
 */
jest.setTimeout(90_000);

let nats: TestNats | undefined;
let nc: NatsConnection | undefined;
let reader: PacedEventReader | undefined;

beforeEach(async () => {
  nats = await startTestNats();
  nc = await connectNats(nats.url, 'gateway');
  await ensureAgentEventsStream(await nc.jetstreamManager());
  reader = new PacedEventReader(nc);
});

afterEach(async () => {
  reader?.close();
  await nc?.close().catch(() => undefined);
  await nats?.stop();
  nats = nc = reader = undefined;
});

test('an open while the server is down waits for it: back within seconds, the read opens', async () => {
  await nats!.kill();
  const opening = reader!.open('waits', 0);
  await new Promise((r) => setTimeout(r, 2_000));
  await nats!.start();
  const sub = await opening;
  sub.stop();
});

test('an open while the server stays down is UNAVAILABLE, naming NATS, after its patience', async () => {
  await nats!.kill();
  const started = Date.now();
  const failure = await reader!.open('gives-up', 0).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(failure).toBeInstanceOf(StrandError);
  expect((failure as StrandError).code).toBe(ErrorCode.UNAVAILABLE);
  expect((failure as StrandError).message).toMatch(/^the session's events cannot be read right now \(NATS: .+\); retry$/);
  // It was tried again, not failed at the first refusal (a request fails after 3 s at most).
  expect(Date.now() - started).toBeGreaterThanOrEqual(9_000);
});
