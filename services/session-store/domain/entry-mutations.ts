import { StoreError, StoreErrorCode } from '../../../contracts/session-store/errors';
import type { ParsedRequest, StoreReply } from '../../../contracts/session-store/functions';
import type { SessionEntry, SessionMeta } from '../../../contracts/session-store/schemas';
import type { LogRecord } from '../storage/port';
import type { SessionStore } from './store';

/**
 * append-many: messages chained in order under `parent_id` (default: the active leaf), written in one
 * commit, one `message-added` each, in order. Not idempotent (no entry ids are taken from the caller).
 */
export function appendMany(store: SessionStore, req: ParsedRequest<'appendMany'>): Promise<StoreReply<'appendMany'>> {
  return store.serialized(req.session_id, async () => {
    const s = store.require(req.session_id);
    if (req.messages.length === 0) throw new StoreError(StoreErrorCode.EMPTY_BATCH, 'append-many needs at least one message');
    if (req.parent_id !== undefined && !s.entries.has(req.parent_id)) {
      throw new StoreError(StoreErrorCode.PARENT_NOT_FOUND, `no entry "${req.parent_id}" in session ${req.session_id}`);
    }
    const now = store.ids.now();
    let parent = req.parent_id !== undefined ? req.parent_id : s.leaf;
    const records: LogRecord[] = [];
    const entries: SessionEntry[] = [];
    for (const message of req.messages) {
      const entry: SessionEntry = { kind: 'message', id: store.ids.newId(), parent_id: parent, timestamp: now, revision: 0, message, ...(req.origin !== undefined ? { origin: req.origin } : {}) };
      entries.push(entry);
      records.push({ type: 'entry', entry });
      parent = entry.id;
    }
    records.push({ type: 'leaf', entry_id: parent! });
    const meta: SessionMeta = { ...s.meta, updated_at: now, message_count: s.meta.message_count + entries.length };
    records.push({ type: 'meta', meta });
    await store.commit(req.session_id, s, records);
    for (const e of entries) {
      store.emit('message-added', req.session_id, {
        session_id: req.session_id,
        entry_id: e.id,
        parent_id: e.parent_id,
        message: (e as Extract<SessionEntry, { kind: 'message' }>).message,
        ...(req.origin !== undefined ? { origin: req.origin } : {}),
        timestamp: now,
      });
    }
    return { entry_ids: entries.map((e) => e.id), last_entry_id: parent! };
  });
}

/**
 * update-message: replaces a message's content (and details, for function_result/custom messages),
 * bumping its revision; the entry timestamp never changes. A stale `expected_revision` changes nothing.
 */
export function updateMessage(store: SessionStore, req: ParsedRequest<'updateMessage'>): Promise<StoreReply<'updateMessage'>> {
  return store.serialized(req.session_id, async () => {
    const s = store.require(req.session_id);
    const entry = s.entries.get(req.entry_id);
    if (!entry) throw new StoreError(StoreErrorCode.ENTRY_NOT_FOUND, `no entry "${req.entry_id}" in session ${req.session_id}`);
    if (entry.kind !== 'message') throw new StoreError(StoreErrorCode.INVALID_ENTRY_KIND, `entry "${req.entry_id}" is a custom entry, not a message`);
    if (req.details !== undefined && entry.message.role !== 'function_result' && entry.message.role !== 'custom') {
      throw new StoreError(StoreErrorCode.DETAILS_NOT_SUPPORTED, `details are only for function_result and custom messages, not ${entry.message.role}`);
    }
    if (req.expected_revision !== undefined && req.expected_revision !== entry.revision) return { updated: false, revision: entry.revision };
    const now = store.ids.now();
    const message = { ...entry.message, content: req.content, ...(req.details !== undefined ? { details: req.details } : {}) } as typeof entry.message;
    const updated: SessionEntry = { ...entry, message, revision: entry.revision + 1 };
    const meta: SessionMeta = { ...s.meta, updated_at: now };
    await store.commit(req.session_id, s, [{ type: 'entry', entry: updated }, { type: 'meta', meta }]);
    store.emit('message-updated', req.session_id, {
      session_id: req.session_id,
      entry_id: req.entry_id,
      message,
      revision: updated.revision,
      ...(req.origin !== undefined ? { origin: req.origin } : {}),
      timestamp: now,
    });
    return { updated: true, revision: updated.revision };
  });
}
