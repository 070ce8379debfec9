import type { NatsConnection } from 'nats';
import { StoreClient } from '../../contracts/session-store/client';
import type { Message } from '../../contracts/session-store/schemas';
import { bindStoreEvents, type StoreEventBinding } from '../../contracts/session-store/subscription';
import { startTestStoreService, type TestStoreService } from '../harness/store-service';

/** The typed subscription client against the real store service on a real nats-server. */
let svc: TestStoreService;
let nc: NatsConnection;
let client: StoreClient;
const bindings: StoreEventBinding[] = [];

beforeAll(async () => {
  svc = await startTestStoreService();
  nc = svc.nc;
  client = new StoreClient(nc);
});

afterEach(() => {
  for (const b of bindings.splice(0)) b.unbind();
});

afterAll(async () => {
  await svc?.stop();
});

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }], timestamp: 1 });
const assistant = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }], model: 'm', provider: 'p', stop_reason: 'end', timestamp: 1 });

async function settle(): Promise<void> {
  await nc.flush();
  await new Promise((r) => setTimeout(r, 150));
}

function collect<T>(into: T[]) {
  return (p: T) => void into.push(p);
}

test('filters by session, role and metadata; each binding hears each event once; unbind stops delivery', async () => {
  const a = await client.create({ metadata: { owner: 'alice' } });
  const b = await client.create({ metadata: { owner: 'bob' } });
  const all: any[] = [];
  const all2: any[] = [];
  const onlyA: any[] = [];
  const assistants: any[] = [];
  const alice: any[] = [];
  bindings.push(bindStoreEvents(nc, 'message-added', {}, collect(all)));
  bindings.push(bindStoreEvents(nc, 'message-added', {}, collect(all2)));
  bindings.push(bindStoreEvents(nc, 'message-added', { session_id: a.session_id }, collect(onlyA)));
  bindings.push(bindStoreEvents(nc, 'message-added', { roles: ['assistant'] }, collect(assistants)));
  bindings.push(bindStoreEvents(nc, 'message-added', { metadata: { owner: 'alice' } }, collect(alice)));
  await nc.flush();

  await client.append({ session_id: a.session_id, message: user('a1') });
  await client.append({ session_id: b.session_id, message: assistant('b1') });
  await client.append({ session_id: a.session_id, custom: { custom_type: 'note' } });
  await settle();
  expect(all.length).toBe(3);
  expect(all2.length).toBe(3);
  expect(onlyA.map((p) => p.session_id)).toEqual([a.session_id, a.session_id]);
  expect(assistants.map((p) => p.message.content[0].text)).toEqual(['b1']);
  expect(alice.map((p) => p.session_id).sort()).toEqual([a.session_id, a.session_id]);

  // Metadata moves: the binding follows the session's current metadata.
  await client.setMeta({ session_id: b.session_id, metadata: { owner: 'alice' } });
  await settle();
  await client.append({ session_id: b.session_id, message: user('b2') });
  await settle();
  expect(alice.length).toBe(3);

  expect(all.length).toBe(4);
  bindings[0]!.unbind();
  await client.append({ session_id: a.session_id, message: user('a2') });
  await settle();
  expect(all.length).toBe(4);
  expect(all2.length).toBe(5);
});

test('created, status-changed, meta-updated and deleted bindings', async () => {
  const created: any[] = [];
  const statuses: any[] = [];
  const metas: any[] = [];
  const deleted: any[] = [];
  bindings.push(bindStoreEvents(nc, 'created', { metadata: { team: 'x' } }, collect(created)));
  bindings.push(bindStoreEvents(nc, 'status-changed', {}, collect(statuses)));
  bindings.push(bindStoreEvents(nc, 'meta-updated', {}, collect(metas)));
  bindings.push(bindStoreEvents(nc, 'deleted', { metadata: { team: 'x' } }, collect(deleted)));
  await nc.flush();
  const s = await client.create({ metadata: { team: 'x' } });
  await client.create({ metadata: { team: 'y' } });
  await client.setStatus({ session_id: s.session_id, status: 'error', reason: 'boom' });
  await client.setMeta({ session_id: s.session_id, title: 'renamed' });
  await client.delete({ session_id: s.session_id });
  await settle();
  expect(created.map((p) => p.session_id)).toEqual([s.session_id]);
  expect(statuses).toEqual([expect.objectContaining({ session_id: s.session_id, status: 'error', previous_status: 'idle', status_reason: 'boom' })]);
  expect(metas).toEqual([expect.objectContaining({ title: 'renamed', metadata: { team: 'x' } })]);
  expect(deleted.map((p) => p.session_id)).toEqual([s.session_id]);
});

test('a malformed binding is rejected before anything is subscribed', () => {
  expect(() => bindStoreEvents(nc, 'created', { session_id: 'x' } as never, () => undefined)).toThrow(/session_id not allowed on created/);
  expect(() => bindStoreEvents(nc, 'deleted', { roles: ['user'] } as never, () => undefined)).toThrow(/roles not allowed/);
});
