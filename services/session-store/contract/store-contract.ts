import { StoreError } from '../../../contracts/session-store/errors';
import type { Message } from '../../../contracts/session-store/schemas';
import type { StoreHarness } from './harness';

/**
 * The session store's behaviour (docs/store.md), written once and run against every
 * storage adapter. Ids are `id1, id2, …` and the clock moves only when a scenario says so.
 */
const user = (text: string, timestamp = 1): Message => ({ role: 'user', content: [{ type: 'text', text }], timestamp });
const assistant = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }], model: 'm', provider: 'p', stop_reason: 'end', timestamp: 2 });
const result = (text: string): Message => ({ role: 'function_result', function_call_id: 'c1', function_id: 'f', content: [{ type: 'text', text }], is_error: false, timestamp: 3 });

async function code(p: Promise<unknown> | (() => unknown)): Promise<string | undefined> {
  try {
    await (typeof p === 'function' ? p() : p);
    return undefined;
  } catch (err) {
    if (err instanceof StoreError) return err.code;
    throw err;
  }
}

/** `tornWrites`: the adapter writes files that a crash can leave with a damaged last line. */
export function describeStoreContract(name: string, make: () => Promise<StoreHarness>, opts: { tornWrites?: boolean } = {}): void {
  describe(`session store contract: ${name}`, () => {
    let h: StoreHarness;
    beforeEach(async () => {
      h = await make();
    });
    afterEach(async () => {
      await h.cleanup();
    });

    test('create: idle, empty title/description, fires created', async () => {
      const { session_id, meta } = await h.store.create({ metadata: { owner: 'alice' } });
      expect(meta).toEqual({ session_id, title: '', description: '', status: 'idle', metadata: { owner: 'alice' }, created_at: 1000, updated_at: 1000, message_count: 0 });
      expect(h.events).toEqual([{ type: 'created', session_id, payload: { session_id, title: '', description: '', status: 'idle', created_at: 1000, metadata: { owner: 'alice' } } }]);
    });

    test('ensure creates only when missing; an existing session is untouched and fires nothing', async () => {
      const first = await h.store.ensure({ session_id: 'fixed', title: 'A' });
      expect(first.created).toBe(true);
      const again = await h.store.ensure({ session_id: 'fixed', title: 'B' });
      expect(again).toMatchObject({ created: false, meta: { title: 'A' } });
      expect(h.events.map((e) => e.type)).toEqual(['created']);
    });

    test('append: parent defaults to the leaf, leaf moves, message_count counts messages only', async () => {
      const { session_id: s } = await h.store.create({});
      h.clock.tick();
      const a = await h.store.append({ session_id: s, message: user('hi') });
      const b = await h.store.append({ session_id: s, message: assistant('hello') });
      const c = await h.store.append({ session_id: s, custom: { custom_type: 'note', data: { x: 1 } } });
      expect([a.parent_id, b.parent_id, c.parent_id]).toEqual([null, a.entry_id, b.entry_id]);
      expect(h.store.get({ session_id: s })!.meta).toMatchObject({ message_count: 2, updated_at: 1001 });
      const added = h.events.filter((e) => e.type === 'message-added');
      expect(added.map((e) => e.payload.entry_id)).toEqual([a.entry_id, b.entry_id, c.entry_id]);
      expect(added[2]!.payload.custom).toEqual({ custom_type: 'note', data: { x: 1 } });
      expect(added[0]!.payload.timestamp).toBe(a.timestamp);
    });

    test('append is idempotent on entry_id: same reply, nothing written, fired or moved, new payload ignored', async () => {
      const { session_id: s } = await h.store.create({});
      const first = await h.store.append({ session_id: s, entry_id: 't1:user', message: user('original') });
      await h.store.append({ session_id: s, message: assistant('later') });
      const before = h.events.length;
      h.clock.tick(50);
      const replay = await h.store.append({ session_id: s, entry_id: 't1:user', message: user('DIFFERENT') });
      expect(replay).toEqual(first);
      expect(h.events.length).toBe(before);
      const page = h.store.messages({ session_id: s })!;
      expect(page.messages.map((m) => (m.message!.content[0] as { text: string }).text)).toEqual(['original', 'later']);
      expect(h.store.get({ session_id: s })!.meta.message_count).toBe(2);
    });

    test('append errors: unknown session, unknown parent', async () => {
      expect(await code(h.store.append({ session_id: 'nope', message: user('x') }))).toBe('session/not_found');
      const { session_id: s } = await h.store.create({});
      expect(await code(h.store.append({ session_id: s, parent_id: 'ghost', message: user('x') }))).toBe('session/parent_not_found');
    });

    test('append-many chains in order with one event each; an empty batch is rejected', async () => {
      const { session_id: s } = await h.store.create({});
      const r = await h.store.appendMany({ session_id: s, messages: [user('a'), assistant('b'), user('c')] });
      expect(r.entry_ids.length).toBe(3);
      expect(r.last_entry_id).toBe(r.entry_ids[2]);
      const added = h.events.filter((e) => e.type === 'message-added');
      expect(added.map((e) => [e.payload.entry_id, e.payload.parent_id])).toEqual([
        [r.entry_ids[0], null],
        [r.entry_ids[1], r.entry_ids[0]],
        [r.entry_ids[2], r.entry_ids[1]],
      ]);
      expect(await code(h.store.appendMany({ session_id: s, messages: [] }))).toBe('session/empty_batch');
    });

    test('update-message: revisions, expected_revision, timestamps, details rules, custom entries', async () => {
      const { session_id: s } = await h.store.create({});
      const a = await h.store.append({ session_id: s, message: assistant('') });
      h.clock.tick(10);
      expect(await h.store.updateMessage({ session_id: s, entry_id: a.entry_id, content: [{ type: 'text', text: 'Hel' }] })).toEqual({ updated: true, revision: 1 });
      expect(await h.store.updateMessage({ session_id: s, entry_id: a.entry_id, content: [{ type: 'text', text: 'Hello' }], expected_revision: 1 })).toEqual({ updated: true, revision: 2 });
      const eventsBefore = h.events.length;
      expect(await h.store.updateMessage({ session_id: s, entry_id: a.entry_id, content: [{ type: 'text', text: 'stale' }], expected_revision: 1 })).toEqual({ updated: false, revision: 2 });
      expect(h.events.length).toBe(eventsBefore);
      const entry = h.store.getMessage({ session_id: s, entry_id: a.entry_id })!.entry;
      expect(entry).toMatchObject({ revision: 2, timestamp: a.timestamp, message: { content: [{ type: 'text', text: 'Hello' }] } });
      const upd = h.events.filter((e) => e.type === 'message-updated');
      expect(upd.map((e) => e.payload.revision)).toEqual([1, 2]);
      expect(upd[1]!.payload.message).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'Hello' }] });

      expect(await code(h.store.updateMessage({ session_id: s, entry_id: a.entry_id, content: [], details: { x: 1 } }))).toBe('session/details_not_supported');
      const fr = await h.store.append({ session_id: s, message: result('out') });
      expect(await h.store.updateMessage({ session_id: s, entry_id: fr.entry_id, content: [], details: { exit: 0 } })).toEqual({ updated: true, revision: 1 });
      const c = await h.store.append({ session_id: s, custom: { custom_type: 'compaction', data: {} } });
      expect(await code(h.store.updateMessage({ session_id: s, entry_id: c.entry_id, content: [] }))).toBe('session/invalid_entry_kind');
      expect(await code(h.store.updateMessage({ session_id: s, entry_id: 'ghost', content: [] }))).toBe('session/entry_not_found');
    });

    test('two writers racing on expected_revision: one wins, one event', async () => {
      const { session_id: s } = await h.store.create({});
      const a = await h.store.append({ session_id: s, message: assistant('') });
      const before = h.events.length;
      const [x, y] = await Promise.all([
        h.store.updateMessage({ session_id: s, entry_id: a.entry_id, content: [{ type: 'text', text: 'x' }], expected_revision: 0 }),
        h.store.updateMessage({ session_id: s, entry_id: a.entry_id, content: [{ type: 'text', text: 'y' }], expected_revision: 0 }),
      ]);
      expect([x.updated, y.updated].sort()).toEqual([false, true]);
      expect(h.events.length - before).toBe(1);
    });

    test('branches: set-active-leaf moves without an event; messages follow the active path; from_entry_id views another branch', async () => {
      const { session_id: s } = await h.store.create({});
      const u = await h.store.append({ session_id: s, message: user('q') });
      const a1 = await h.store.append({ session_id: s, message: assistant('first answer') });
      const before = h.events.length;
      const updatedAt = h.store.get({ session_id: s })!.meta.updated_at;
      h.clock.tick(5);
      expect(await h.store.setActiveLeaf({ session_id: s, entry_id: u.entry_id })).toEqual({ active_leaf: u.entry_id });
      expect(h.events.length).toBe(before);
      expect(h.store.get({ session_id: s })!.meta.updated_at).toBe(updatedAt);
      const a2 = await h.store.append({ session_id: s, message: assistant('second answer') });
      expect(a2.parent_id).toBe(u.entry_id);
      expect(h.store.messages({ session_id: s })!.messages.map((m) => m.entry_id)).toEqual([u.entry_id, a2.entry_id]);
      expect(h.store.messages({ session_id: s, from_entry_id: a1.entry_id })!.messages.map((m) => m.entry_id)).toEqual([u.entry_id, a1.entry_id]);
      expect(h.store.get({ session_id: s })!.meta.message_count).toBe(3);
      expect(await code(h.store.setActiveLeaf({ session_id: s, entry_id: 'ghost' }))).toBe('session/entry_not_found');
    });

    test('set-active-leaf to the root (entry_id null): an empty branch; an append starts a new one; back to the old leaf restores it', async () => {
      const { session_id: s } = await h.store.create({});
      const u = await h.store.append({ session_id: s, entry_id: 't1:user', message: user('q') });
      const a = await h.store.append({ session_id: s, message: assistant('') });
      await h.store.updateMessage({ session_id: s, entry_id: a.entry_id, content: [{ type: 'text', text: 'answer' }] });
      const before = h.events.length;
      const updatedAt = h.store.get({ session_id: s })!.meta.updated_at;
      h.clock.tick(5);
      expect(await h.store.setActiveLeaf({ session_id: s, entry_id: null })).toEqual({ active_leaf: null });
      // Like any move: no event, updated_at unchanged, entries and their revisions untouched; repeating it is a no-op.
      expect(await h.store.setActiveLeaf({ session_id: s, entry_id: null })).toEqual({ active_leaf: null });
      expect(h.events.length).toBe(before);
      expect(h.store.get({ session_id: s })!.meta).toMatchObject({ updated_at: updatedAt, message_count: 2 });
      expect(h.store.messages({ session_id: s })!.messages).toEqual([]);
      expect(h.store.messages({ session_id: s, include_custom: true })!.messages).toEqual([]);
      expect(h.store.getMessage({ session_id: s, entry_id: a.entry_id })!.entry.revision).toBe(1);
      expect(h.store.messages({ session_id: s, from_entry_id: a.entry_id })!.messages.map((m) => m.entry_id)).toEqual([u.entry_id, a.entry_id]);
      // A retried append of an entry that exists answers as before and does not move the leaf off the root.
      expect((await h.store.append({ session_id: s, entry_id: 't1:user', message: user('q') })).entry_id).toBe(u.entry_id);
      expect(h.store.messages({ session_id: s })!.messages).toEqual([]);
      // The root survives a restart.
      const again = await h.restart();
      expect(again.messages({ session_id: s })!.messages).toEqual([]);
      // An append starts a new branch from the root; the old branch stays reachable.
      const fresh = await again.append({ session_id: s, message: user('another start') });
      expect(fresh.parent_id).toBeNull();
      expect(again.messages({ session_id: s })!.messages.map((m) => m.entry_id)).toEqual([fresh.entry_id]);
      expect(await again.setActiveLeaf({ session_id: s, entry_id: null })).toEqual({ active_leaf: null });
      expect(await again.setActiveLeaf({ session_id: s, entry_id: a.entry_id })).toEqual({ active_leaf: a.entry_id });
      expect(again.messages({ session_id: s })!.messages.map((m) => m.entry_id)).toEqual([u.entry_id, a.entry_id]);
      const next = await again.append({ session_id: s, message: user('continued') });
      expect(next.parent_id).toBe(a.entry_id);
    });

    test('messages: pages, roles, include_custom, cursors bound to their query', async () => {
      const { session_id: s } = await h.store.create({});
      for (let i = 0; i < 5; i++) await h.store.append({ session_id: s, message: i % 2 ? assistant(`a${i}`) : user(`u${i}`) });
      await h.store.append({ session_id: s, custom: { custom_type: 'mark' } });
      const p1 = h.store.messages({ session_id: s, limit: 2 })!;
      expect(p1.messages.length).toBe(2);
      const p2 = h.store.messages({ session_id: s, limit: 2, cursor: p1.next_cursor })!;
      const p3 = h.store.messages({ session_id: s, limit: 2, cursor: p2.next_cursor })!;
      expect([...p1.messages, ...p2.messages, ...p3.messages].map((m) => m.entry_id)).toEqual(['id2', 'id3', 'id4', 'id5', 'id6']);
      expect(p3.next_cursor).toBeUndefined();
      expect(h.store.messages({ session_id: s, include_custom: true })!.messages.map((m) => m.custom?.custom_type ?? m.message!.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'mark']);
      expect(h.store.messages({ session_id: s, roles: ['assistant'], include_custom: true })!.messages.map((m) => m.entry_id)).toEqual(['id3', 'id5']);
      expect(h.store.messages({ session_id: 'nope' })).toBeNull();
      const { session_id: other } = await h.store.create({});
      await h.store.append({ session_id: other, message: user('x') });
      await h.store.append({ session_id: other, message: user('y') });
      expect(await code(() => h.store.messages({ session_id: other, cursor: p1.next_cursor }))).toBe('session/invalid_cursor');
      expect(await code(() => h.store.messages({ session_id: s, cursor: 'garbage' }))).toBe('session/invalid_cursor');
      expect(h.store.messages({ session_id: s, limit: 0 })!.messages.length).toBe(1);
    });

    test('fork copies only the path after a branch switch, with fresh ids, remapped parents and compaction ref', async () => {
      const { session_id: s } = await h.store.create({ title: 'T', description: 'D', metadata: { owner: 'bob' } });
      const u = await h.store.append({ session_id: s, message: user('q') });
      await h.store.append({ session_id: s, message: assistant('abandoned') });
      await h.store.setActiveLeaf({ session_id: s, entry_id: u.entry_id });
      const a = await h.store.append({ session_id: s, message: assistant('kept') });
      await h.store.updateMessage({ session_id: s, entry_id: a.entry_id, content: [{ type: 'text', text: 'kept!' }] });
      const c = await h.store.append({ session_id: s, custom: { custom_type: 'compaction', data: { summary: 'S', first_kept_entry_id: a.entry_id } } });
      h.events.length = 0;
      h.clock.tick(100);
      const f = await h.store.fork({ session_id: s, entry_id: c.entry_id });
      expect(f.meta).toMatchObject({ title: 'T', description: 'D', metadata: { owner: 'bob' }, status: 'idle', forked_from: s, message_count: 2 });
      const copied = h.store.messages({ session_id: f.session_id, include_custom: true })!.messages;
      expect(copied.length).toBe(3);
      expect(copied.map((m) => m.entry_id)).not.toContain(u.entry_id);
      const entries = copied.map((m) => h.store.getMessage({ session_id: f.session_id, entry_id: m.entry_id })!.entry);
      expect(entries.map((e) => e.parent_id)).toEqual([null, entries[0]!.id, entries[1]!.id]);
      expect(entries.map((e) => e.revision)).toEqual([0, 0, 0]);
      expect(entries[0]!.timestamp).toBe(u.timestamp);
      expect((entries[2] as { data: { first_kept_entry_id: string } }).data.first_kept_entry_id).toBe(entries[1]!.id);
      expect(h.events.map((e) => [e.type, e.session_id])).toEqual([['created', f.session_id]]);
      expect((await h.store.fork({ session_id: s, entry_id: u.entry_id, title: 'new' })).meta.title).toBe('new');
      expect(await code(h.store.fork({ session_id: s, entry_id: 'ghost' }))).toBe('session/entry_not_found');
    });

    test('set-status: reason only on error, same status is a no-op', async () => {
      const { session_id: s } = await h.store.create({});
      expect(await h.store.setStatus({ session_id: s, status: 'error', reason: 'boom' })).toEqual({ status: 'error', previous_status: 'idle' });
      expect(h.store.get({ session_id: s })!.meta.status_reason).toBe('boom');
      await h.store.setStatus({ session_id: s, status: 'working', reason: 'ignored' });
      expect(h.store.get({ session_id: s })!.meta.status_reason).toBeUndefined();
      const before = h.events.length;
      await h.store.setStatus({ session_id: s, status: 'working' });
      expect(h.events.length).toBe(before);
      expect(h.events.filter((e) => e.type === 'status-changed').map((e) => e.payload.previous_status)).toEqual(['idle', 'error']);
    });

    test('set-meta replaces given fields, metadata wholesale; nothing given changes nothing', async () => {
      const { session_id: s } = await h.store.create({ title: 'a', metadata: { x: 1, y: 2 } });
      h.clock.tick(3);
      const { meta } = await h.store.setMeta({ session_id: s, metadata: { z: 3 } });
      expect(meta).toMatchObject({ title: 'a', metadata: { z: 3 }, updated_at: 1003 });
      const before = h.events.length;
      await h.store.setMeta({ session_id: s });
      expect(h.events.length).toBe(before);
      expect(h.events[h.events.length - 1]).toMatchObject({ type: 'meta-updated', payload: { title: 'a', metadata: { z: 3 }, timestamp: 1003 } });
    });

    test('set-meta metadata_patch changes only the given keys (null removes) and cannot be combined with metadata', async () => {
      const { session_id: s } = await h.store.create({ metadata: { owner: 'al', x: 1, y: 2 } });
      const { meta } = await h.store.setMeta({ session_id: s, metadata_patch: { x: 10, y: null, z: { deep: true } } });
      expect(meta.metadata).toEqual({ owner: 'al', x: 10, z: { deep: true } });
      expect(h.events[h.events.length - 1]).toMatchObject({ type: 'meta-updated', payload: { metadata: { owner: 'al', x: 10, z: { deep: true } } } });
      const before = h.events.length;
      await h.store.setMeta({ session_id: s, metadata_patch: {} });
      expect(h.events.length).toBe(before);
      await expect(h.store.setMeta({ session_id: s, metadata: {}, metadata_patch: { a: 1 } })).rejects.toMatchObject({ code: 'session/invalid_request' });
    });

    test('delete: forks survive, unknown is false without event, a re-created id starts fresh', async () => {
      const { session_id: s } = await h.store.ensure({ session_id: 'gone' });
      const u = await h.store.append({ session_id: s, message: user('q') });
      const f = await h.store.fork({ session_id: s, entry_id: u.entry_id });
      expect(await h.store.delete({ session_id: s })).toEqual({ deleted: true });
      expect(await h.store.delete({ session_id: s })).toEqual({ deleted: false });
      expect(h.events.filter((e) => e.type === 'deleted').length).toBe(1);
      expect(h.store.get({ session_id: s })).toBeNull();
      expect(h.store.messages({ session_id: f.session_id })!.messages.length).toBe(1);
      await h.store.ensure({ session_id: 'gone' });
      expect(h.store.messages({ session_id: 'gone' })!.messages).toEqual([]);
      const restarted = await h.restart();
      expect(restarted.messages({ session_id: 'gone' })!.messages).toEqual([]);
    });

    test('list: orders, filters, equal timestamps never skip or repeat, cursor bound to order', async () => {
      for (let i = 0; i < 7; i++) await h.store.create({ metadata: { owner: i % 2 ? 'a' : 'b' } });
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = h.store.list({ limit: 2, order: 'created_asc', ...(cursor ? { cursor } : {}) });
        seen.push(...page.sessions.map((m) => m.session_id));
        cursor = page.next_cursor;
      } while (cursor);
      expect(seen).toEqual(['id1', 'id2', 'id3', 'id4', 'id5', 'id6', 'id7']);
      expect(h.store.list({ order: 'created_desc' }).sessions[0]!.session_id).toBe('id7');
      expect(h.store.list({ metadata: { owner: 'a' } }).sessions.length).toBe(3);
      const p = h.store.list({ limit: 2 });
      expect(await code(() => h.store.list({ cursor: p.next_cursor, order: 'created_asc' }))).toBe('session/invalid_cursor');
      expect(h.store.list({ limit: 100000 }).sessions.length).toBe(7);
    });

    test('restart restores meta, revisions, status and active leaf', async () => {
      const { session_id: s } = await h.store.create({ title: 'keep' });
      const u = await h.store.append({ session_id: s, message: user('q') });
      const a = await h.store.append({ session_id: s, message: assistant('') });
      await h.store.updateMessage({ session_id: s, entry_id: a.entry_id, content: [{ type: 'text', text: 'done' }] });
      await h.store.setStatus({ session_id: s, status: 'error', reason: 'r' });
      await h.store.setActiveLeaf({ session_id: s, entry_id: u.entry_id });
      const again = await h.restart();
      expect(again.get({ session_id: s })).toEqual(h.store.get({ session_id: s }));
      expect(again.getMessage({ session_id: s, entry_id: a.entry_id })!.entry.revision).toBe(1);
      expect(again.messages({ session_id: s })!.messages.map((m) => m.entry_id)).toEqual([u.entry_id]);
    });

    const ifTorn = opts.tornWrites ? test : () => undefined;
    ifTorn('a damaged last record is skipped on load, never fatal', async () => {
      if (!h.tearLastRecord) throw new Error('the harness must provide tearLastRecord');
      const { session_id: s } = await h.store.create({});
      await h.store.append({ session_id: s, message: user('kept') });
      await h.tearLastRecord(s);
      const again = await h.restart();
      expect(again.get({ session_id: s })).not.toBeNull();
      expect(again.loadWarnings.join('\n')).toMatch(/skipped unreadable last line/);
      await again.append({ session_id: s, message: user('after') });
      const third = await h.restart();
      expect(third.loadWarnings.join('\n')).toMatch(/skipped/);
      expect(third.messages({ session_id: s })!.messages.length).toBeGreaterThanOrEqual(1);
    });
  });
}
