import type { Message } from '../../../contracts/session-store/schemas';
import { scriptedIdsAndClock } from '../contract/harness';
import { MemoryStorage } from '../storage/memory-storage';
import type { LogRecord } from '../storage/port';
import { SessionStore } from './store';

/** Storage whose writes fail while `broken` is set, like a full disk. */
class FlakyStorage extends MemoryStorage {
  broken = false;
  override async append(sessionId: string, records: LogRecord[]): Promise<void> {
    await new Promise((r) => setTimeout(r, 5));
    if (this.broken) throw new Error('ENOSPC: no space left on device');
    return super.append(sessionId, records);
  }
}

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }], timestamp: 1 });

test('a failed write answers session/storage, fires nothing, and leaves memory equal to storage', async () => {
  const storage = new FlakyStorage();
  const events: string[] = [];
  const store = new SessionStore(storage, (type) => events.push(type), { default_list_limit: 50, max_list_limit: 500 }, scriptedIdsAndClock());
  const { session_id } = await store.create({});
  await store.append({ session_id, message: user('kept') });
  storage.broken = true;
  // Two appends pipelined behind the failing one fail with it.
  const results = await Promise.allSettled([
    store.append({ session_id, message: user('lost 1') }),
    store.append({ session_id, message: user('lost 2') }),
  ]);
  expect(results.map((r) => (r.status === 'rejected' ? (r.reason as { code: string }).code : 'ok'))).toEqual(['session/storage', 'session/storage']);
  await new Promise((r) => setTimeout(r, 20));
  expect(events).toEqual(['created', 'message-added']);
  expect(store.messages({ session_id })!.messages.map((m) => (m.message!.content[0] as { text: string }).text)).toEqual(['kept']);
  expect(store.get({ session_id })!.meta.message_count).toBe(1);
  storage.broken = false;
  await store.append({ session_id, message: user('after') });
  expect(store.messages({ session_id })!.messages.length).toBe(2);
});

test('a reply comes only after the write is durable, and events follow in order', async () => {
  const storage = new FlakyStorage();
  const order: string[] = [];
  const store = new SessionStore(storage, (type) => order.push(`event:${type}`), { default_list_limit: 50, max_list_limit: 500 }, scriptedIdsAndClock());
  const { session_id } = await store.create({});
  const replies = [1, 2, 3].map((i) => store.append({ session_id, message: user(`m${i}`) }).then(() => order.push(`reply:${i}`)));
  await Promise.all(replies);
  expect(storage.logs.get(session_id)!.filter((r) => r.type === 'entry').length).toBe(3);
  expect(order.filter((o) => o.startsWith('event')).length).toBe(4);
  expect(order.filter((o) => o.startsWith('reply'))).toEqual(['reply:1', 'reply:2', 'reply:3']);
});

/** Storage that, while `down`, can neither write nor read (a lost connection to shared storage). */
class UnreachableStorage extends FlakyStorage {
  down = false;
  override async append(sessionId: string, records: LogRecord[]): Promise<void> {
    if (this.down) throw new Error('connection lost');
    return super.append(sessionId, records);
  }
  override async loadOne(sessionId: string): Promise<LogRecord[] | undefined> {
    if (this.down) throw new Error('connection lost');
    return super.loadOne(sessionId);
  }
}

test('when storage cannot even be re-read, the session leaves memory and comes back once it can', async () => {
  const storage = new UnreachableStorage();
  const store = new SessionStore(storage, () => undefined, { default_list_limit: 50, max_list_limit: 500 }, scriptedIdsAndClock());
  const { session_id } = await store.create({});
  await store.append({ session_id, message: user('kept') });
  storage.down = true;
  await expect(store.append({ session_id, message: user('lost') })).rejects.toMatchObject({ code: 'session/storage' });
  // Memory may hold what was never written, so the session is not served from it — and a read says
  // "cannot be read right now", never "no such session"...
  expect(() => store.get({ session_id })).toThrow(expect.objectContaining({ code: 'session/storage' }));
  expect(() => store.messages({ session_id })).toThrow(expect.objectContaining({ code: 'session/storage' }));
  storage.down = false;
  // ...and it is reloaded in the background as soon as storage answers, with only what was written.
  const deadline = Date.now() + 3_000;
  const readable = () => {
    try {
      return store.get({ session_id }) !== null;
    } catch {
      return false;
    }
  };
  while (!readable() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  expect(store.messages({ session_id })!.messages.map((m) => (m.message!.content[0] as { text: string }).text)).toEqual(['kept']);
});

/**
 * Shared storage whose tail cannot say what another instance wrote (`sync` answers undefined: read
 * the session directly), and whose direct read fails while `down` — a NATS node cut off mid-read.
 */
class LaggingSharedStorage extends UnreachableStorage {
  async sync(): Promise<string[] | undefined> {
    return undefined;
  }
}

test('a read whose catch-up cannot reload the session answers session/storage, not "no such session"', async () => {
  const storage = new LaggingSharedStorage();
  const store = new SessionStore(storage, () => undefined, { default_list_limit: 50, max_list_limit: 500 }, scriptedIdsAndClock());
  const { session_id } = await store.create({});
  await store.append({ session_id, message: user('kept') });
  storage.down = true;
  // The service's read: catch up, then answer from memory.
  await store.catchUp(session_id);
  expect(() => store.get({ session_id })).toThrow(expect.objectContaining({ code: 'session/storage', message: expect.stringContaining('retry') }));
  expect(() => store.getMessage({ session_id, entry_id: 'any' })).toThrow(expect.objectContaining({ code: 'session/storage' }));
  storage.down = false;
  await store.catchUp(session_id);
  expect(store.get({ session_id })!.meta.message_count).toBe(1);
});
