import pino from 'pino';
import { connect, type NatsConnection } from 'nats';
import { StoreClient } from '../../contracts/session-store/client';
import type { Message } from '../../contracts/session-store/schemas';
import { SessionStore } from '../../services/session-store/domain/store';
import { startStoreService, type RunningStore } from '../../services/session-store/service';
import { JetStreamStorage, type JetStreamStorageOptions } from '../../services/session-store/storage/jetstream-storage';
import { startTestNats, type TestNats } from '../harness/nats-server';

/**
 * Two live store instances on one stream, as `npm start -- --stores 2` runs them: whichever instance
 * answers, a request sees every commit acknowledged before it was sent (by this instance or the
 * other), and a mutation is computed on that state, never on what this instance happened to have.
 */
let nats: TestNats;
const connections: NatsConnection[] = [];
let n = 0;

beforeAll(async () => {
  nats = await startTestNats();
});

afterAll(async () => {
  for (const c of connections) await c.close();
  await nats?.stop();
});

async function connection(): Promise<NatsConnection> {
  const c = await connect({ servers: nats.url });
  connections.push(c);
  return c;
}

const limits = { default_list_limit: 50, max_list_limit: 500 };
const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }], timestamp: 1 });

/**
 * The real adapter, with its news of other instances' commits handed to the domain late, as on a
 * busy instance whose tail lags: what a request sees must not depend on that hand-over.
 */
class LaggingNews extends JetStreamStorage {
  override follow(changed: (sessionId: string) => void): Promise<void> {
    return super.follow((id) => setTimeout(() => changed(id), 3_000).unref());
  }
}

async function pair(): Promise<{ a: SessionStore; b: SessionStore; close(): Promise<void> }> {
  const k = ++n;
  const opts: JetStreamStorageOptions = { stream: `PAIR_${k}`, subjectPrefix: `pair${k}.log` };
  const a = new SessionStore(new JetStreamStorage(await connection(), opts), () => undefined, limits);
  await a.load();
  const b = new SessionStore(new LaggingNews(await connection(), opts), () => undefined, limits);
  await b.load();
  return {
    a,
    b,
    async close() {
      await a.storage.close();
      await b.storage.close();
    },
  };
}

describe('a read on one instance right after a write on the other', () => {
  test('sees the session, its messages and the entry', async () => {
    const { a, b, close } = await pair();
    try {
      const { session_id } = await a.create({ title: 'made on A' });
      const { entry_id } = await a.append({ session_id, entry_id: 't1:user', message: user('hello') });
      await b.catchUp(session_id);
      expect(b.get({ session_id })?.meta).toMatchObject({ title: 'made on A', message_count: 1 });
      expect(b.messages({ session_id })!.messages.map((m) => m.entry_id)).toEqual([entry_id]);
      expect(b.getMessage({ session_id, entry_id })?.entry.id).toBe('t1:user');
      const other = await a.create({ title: 'second' });
      await b.catchUp();
      expect(b.list({}).sessions.map((s) => s.session_id).sort()).toEqual([session_id, other.session_id].sort());
    } finally {
      await close();
    }
  });
});

describe('a mutation on one instance right after a write on the other', () => {
  test('finds a session the other just created, and appends after its newest entry', async () => {
    const { a, b, close } = await pair();
    try {
      const { session_id } = await a.ensure({ session_id: 'made-on-a' });
      const first = await a.append({ session_id, message: user('one') });
      const second = await b.append({ session_id, message: user('two') });
      expect(second.parent_id).toBe(first.entry_id);
    } finally {
      await close();
    }
  });

  test('a status change is not taken for a no-op on a stale status', async () => {
    const { a, b, close } = await pair();
    try {
      const { session_id } = await a.create({});
      await a.setStatus({ session_id, status: 'working' });
      expect(await b.setStatus({ session_id, status: 'idle' })).toEqual({ status: 'idle', previous_status: 'working' });
      // A replayed idempotent append answers the entry the other instance wrote, not a second one.
      const written = await a.append({ session_id, entry_id: 't1:user', message: user('once') });
      expect(await b.append({ session_id, entry_id: 't1:user', message: user('twice') })).toEqual(written);
      await a.catchUp(session_id);
      expect(a.messages({ session_id })!.messages.map((m) => m.entry_id)).toEqual(['t1:user']);
    } finally {
      await close();
    }
  });

  test('a delete racing appends of the other instance deletes, instead of failing on the race', async () => {
    const { a, b, close } = await pair();
    try {
      for (let round = 0; round < 5; round++) {
        const { session_id } = await a.create({});
        await b.catchUp(session_id);
        const appends = Array.from({ length: 10 }, (_, i) => a.append({ session_id, message: user(`m${i}`) }).catch(() => 'gone'));
        const [deleted] = await Promise.all([b.delete({ session_id }), ...appends]);
        expect(deleted).toEqual({ deleted: true });
        await a.catchUp(session_id);
        await b.catchUp(session_id);
        expect([a.get({ session_id }), b.get({ session_id })]).toEqual([null, null]);
      }
    } finally {
      await close();
    }
  });
});

test('over NATS, two services in one queue group: every read after a write sees it, whichever instance answers', async () => {
  const config = { adapter: { name: 'jetstream' as const, config: { stream: 'SERVED', subject_prefix: 'served.log' } }, default_list_limit: 50, max_list_limit: 500 };
  const log = pino({ level: 'silent' });
  const services: RunningStore[] = [];
  for (let i = 0; i < 2; i++) services.push(await startStoreService({ nc: await connection(), config, log }));
  try {
    const client = new StoreClient(await connection());
    const { session_id } = await client.create({});
    for (let i = 0; i < 40; i++) {
      const { entry_id } = await client.append({ session_id, message: user(`m${i}`) });
      const page = await client.messages({ session_id, limit: 500 });
      expect(page!.messages.at(-1)?.entry_id).toBe(entry_id);
      expect(page!.messages).toHaveLength(i + 1);
      expect((await client.get({ session_id }))!.meta.message_count).toBe(i + 1);
    }
  } finally {
    for (const s of services) await s.stop();
  }
});
