import fs from 'node:fs';
import type { NatsConnection, Subscription } from 'nats';
import { StoreClient } from '../../contracts/session-store/client';
import { StoreError } from '../../contracts/session-store/errors';
import { storeFunctionSubject } from '../../contracts/session-store/subjects';
import { startTestStoreService, type TestStoreService } from '../harness/store-service';

/**
 * The store as a NATS service: requests through the real client, shape errors rejected before any
 * logic, events on `session.evt.<type>.<token>` after each mutation.
 */
let svc: TestStoreService;
let nc: NatsConnection;
let dataDir: string;
let client: StoreClient;
let events: { subject: string; body: any }[];
let sub: Subscription;

beforeAll(async () => {
  svc = await startTestStoreService({ maxBodyBytes: 64 * 1024 });
  ({ nc, dataDir } = svc);
  client = new StoreClient(nc);
  events = [];
  sub = nc.subscribe('session.evt.>', { callback: (_e, m) => events.push({ subject: m.subject, body: m.json() }) });
});

afterAll(async () => {
  sub?.unsubscribe();
  await svc?.stop();
});

async function settle(): Promise<void> {
  await nc.flush();
  await new Promise((r) => setTimeout(r, 50));
}

async function raw(fn: string, body: string | Uint8Array): Promise<any> {
  const m = await nc.request(storeFunctionSubject(fn), body, { timeout: 5_000 });
  return m.json();
}

test('mutations answer through the client and fire events on encoded subjects', async () => {
  const { session_id, meta } = await client.ensure({ session_id: 'weird id.with*chars', metadata: { owner: 'u1' } });
  expect(meta.status).toBe('idle');
  await client.append({ session_id, entry_id: 'e1', message: { role: 'user', content: [{ type: 'text', text: 'hi' }], timestamp: 1 } });
  await settle();
  const token = `~${Buffer.from(session_id).toString('base64url')}`;
  expect(events.map((e) => e.subject)).toEqual([`session.evt.created.${token}`, `session.evt.message-added.${token}`]);
  expect(events[1]!.body).toMatchObject({ session_id, entry_id: 'e1', parent_id: null, message: { role: 'user' } });
  const page = await client.messages({ session_id });
  expect(page?.messages.map((m) => m.entry_id)).toEqual(['e1']);
  expect(await client.get({ session_id: 'missing' })).toBeNull();
  await expect(client.append({ session_id: 'missing', message: { role: 'user', content: [], timestamp: 1 } })).rejects.toMatchObject({ code: 'session/not_found' });
});

const badRequests: [string, unknown][] = [
  ['create', { title: 42 }],
  ['create', { unknown_key: true }],
  ['ensure', { session_id: '' }],
  ['get', {}],
  ['list', { order: 'sideways' }],
  ['list', { limit: -1 }],
  ['list', { limit: 1.5 }],
  ['set-meta', { session_id: 's', metadata: 'not an object' }],
  ['set-status', { session_id: 's', status: 'sleeping' }],
  ['delete', { session_id: 7 }],
  ['append', { session_id: 's' }],
  ['append', { session_id: 's', message: { role: 'robot', content: [], timestamp: 1 } }],
  ['append', { session_id: 's', message: { role: 'user', content: [], timestamp: 1 }, custom: { custom_type: 'x' } }],
  ['append-many', { session_id: 's', messages: 'nope' }],
  ['update-message', { session_id: 's', entry_id: 'e', content: [], expected_revision: -1 }],
  ['update-message', { session_id: 's', entry_id: 'e' }],
  ['get-message', { session_id: 's' }],
  ['messages', { session_id: 's', roles: ['wizard'] }],
  ['messages', { session_id: 's', limit: 'ten' }],
  ['fork', { session_id: 's' }],
  ['set-active-leaf', { entry_id: 'e' }],
  ['config-status', { extra: 1 }],
];

test.each(badRequests)('%s %j is session/invalid_request, writes nothing, fires nothing', async (fn, body) => {
  const filesBefore = fs.readdirSync(dataDir).sort();
  await settle();
  const eventsBefore = events.length;
  const reply = await raw(fn, JSON.stringify(body));
  expect(reply.ok).toBe(false);
  expect(reply.error.code).toBe('session/invalid_request');
  expect(typeof reply.error.message).toBe('string');
  await settle();
  expect(events.length).toBe(eventsBefore);
  expect(fs.readdirSync(dataDir).sort()).toEqual(filesBefore);
});

test('not JSON and oversized bodies are invalid requests', async () => {
  expect((await raw('create', '{nope')).error.code).toBe('session/invalid_request');
  const big = JSON.stringify({ title: 'x'.repeat(70 * 1024) });
  const reply = await raw('create', big);
  expect(reply.error).toMatchObject({ code: 'session/invalid_request' });
  expect(reply.error.message).toMatch(/limit/);
});

test('config-status reports the running configuration', async () => {
  expect(await client.configStatus()).toEqual({ last_outcome: 'ok', rejected_reloads: 0 });
});

test('a store that does not answer is a retryable storage error', async () => {
  const lonely = new StoreClient(nc, { timeoutMs: 200 });
  const err = await lonely
    .get({ session_id: 'x' })
    .then(() => undefined, (e: unknown) => e)
    .finally(() => undefined);
  expect(err).toBeUndefined(); // the store is up: sanity check of the path
  await svc.running.stop();
  const down = await lonely.get({ session_id: 'x' }).then(() => undefined, (e: unknown) => e);
  expect(down).toBeInstanceOf(StoreError);
  expect((down as StoreError).code).toBe('session/storage');
});
