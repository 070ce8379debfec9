import fs from 'node:fs';
import type { NatsConnection } from 'nats';
import { StoreError, StoreErrorCode } from '../../contracts/session-store/errors';
import { connectNats } from '../../services/common/nats';
import { SessionStore } from '../../services/session-store/domain/store';
import { JetStreamStorage } from '../../services/session-store/storage/jetstream-storage';
import type { LogRecord } from '../../services/session-store/storage/port';
import { startTestNats, type TestNats } from '../harness/nats-server';

/**
 * A sessions stream that is behind what a store instance has already seen — what a newly elected
 * leader that has not applied its whole log looks like (nats-server before 2.11 answered reads from
 * such a leader) — made on one real nats-server by starting it again on an older copy of its store
 * dir. A read of a session the instance has never seen must then fail with `session/storage`
 * (retryable), not answer null: the stream cannot tell whether the session exists. Once the stream is
 * past what the instance saw again, an unknown session is "no such session" again.
 *
 * The instance is the domain over the jetstream adapter without its tail (`load`/`follow` not
 * called): nats.js's ordered consumer, when its server restarts under it, makes a new consumer even
 * after it was stopped, and that one's heartbeat timer then keeps the test process alive. What is
 * checked — the read's catch-up, which decides between null and session/storage — needs no tail.
 */
jest.setTimeout(120_000);

let nats: TestNats | undefined;
let nc: NatsConnection | undefined;
let storage: JetStreamStorage | undefined;
let other: JetStreamStorage | undefined;
let backup: string | undefined;

afterEach(async () => {
  await storage?.close();
  await other?.close();
  await nc?.close().catch(() => undefined);
  await nats?.stop();
  if (backup) fs.rmSync(backup, { recursive: true, force: true });
  storage = other = nc = nats = backup = undefined;
});

const meta = (id: string): LogRecord[] => [
  { type: 'meta', meta: { session_id: id, title: id, description: '', status: 'idle', created_at: 1, updated_at: 1, message_count: 0 } },
];

/** Retries `call` while the server is restarting (the connection reconnects on its own), until it answers or fails with `final`. */
async function once<T>(call: () => Promise<T>, final = /behind its log/): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      return await call();
    } catch (err) {
      if (final.test((err as Error).message) || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

test('a stream behind what the instance saw: a read of a session never seen here fails with session/storage instead of answering "no such session"; null again once the stream is past it', async () => {
  nats = await startTestNats();
  nc = await connectNats(nats.url, 'store');
  storage = new JetStreamStorage(nc, { stream: 'BEHIND_SESSIONS', replicas: 1 });
  const store = new SessionStore(storage, () => undefined, { default_list_limit: 50, max_list_limit: 500 });
  await storage.append('before', meta('before'));
  // Steady state: an unknown session is "no such session".
  await store.catchUp('never-created');
  expect(store.get({ session_id: 'never-created' })).toBeNull();

  // The copy of the store dir, taken with the server down.
  await nats.kill();
  backup = `${nats.storeDir}.copy`;
  fs.cpSync(nats.storeDir, backup, { recursive: true });
  await nats.start();
  // Commits this instance makes (acknowledged, so seen) after the copy...
  await once(() => storage!.append('after', meta('after')));
  await storage.append('after-too', meta('after-too'));
  // ...which the stream then no longer has: it is behind what the instance saw.
  await nats.kill();
  fs.rmSync(nats.storeDir, { recursive: true, force: true });
  fs.cpSync(backup, nats.storeDir, { recursive: true });
  await nats.start();

  const failure = await once(() => store.catchUp('never-created')).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(failure).toBeInstanceOf(StoreError);
  expect((failure as StoreError).code).toBe(StoreErrorCode.STORAGE);
  expect((failure as StoreError).message).toMatch(/at #1 but this store instance has seen #3: the leader is behind its log/);

  // New commits bring the stream past what the instance saw (#3): "no such session" again.
  await storage.append('new-1', meta('new-1'));
  await expect(store.catchUp('never-created')).rejects.toThrow(/behind its log/);
  await storage.append('new-2', meta('new-2'));
  await store.catchUp('never-created');
  expect(store.get({ session_id: 'never-created' })).toBeNull();
});

test('a session another instance wrote, which this one has looked up: a later "no message" from a leader behind is a failure, not "no such session"', async () => {
  nats = await startTestNats();
  nc = await connectNats(nats.url, 'store');
  storage = new JetStreamStorage(nc, { stream: 'BEHIND_RELOAD', replicas: 1 });
  await storage.append('before', meta('before'));
  await nats.kill();
  backup = `${nats.storeDir}.copy`;
  fs.cpSync(nats.storeDir, backup, { recursive: true });
  await nats.start();
  await once(() => storage!.append('written-elsewhere', meta('written-elsewhere')));

  // The reading instance (no tail, as a store whose tail lags): its catch-up finds the session's
  // commit and, having no tail to wait on, says "read the session directly".
  other = new JetStreamStorage(nc, { stream: 'BEHIND_RELOAD', replicas: 1 });
  expect(await other.sync('written-elsewhere', true)).toBeUndefined();

  // Before the direct read, the stream's leader is one that lacks the commit.
  await nats.kill();
  fs.rmSync(nats.storeDir, { recursive: true, force: true });
  fs.cpSync(backup, nats.storeDir, { recursive: true });
  await nats.start();
  const failure = await once(() => other!.loadOne('written-elsewhere'), /not caught up/).then(
    (records) => records,
    (err: unknown) => err as Error,
  );
  expect(failure).toBeInstanceOf(Error);
  expect((failure as Error).message).toMatch(/no message for session written-elsewhere, which it had: not caught up/);
});
