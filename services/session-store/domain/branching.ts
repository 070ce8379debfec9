import { StoreError, StoreErrorCode } from '../../../contracts/session-store/errors';
import type { ParsedRequest, StoreReply } from '../../../contracts/session-store/functions';
import type { SessionEntry, SessionMeta } from '../../../contracts/session-store/schemas';
import type { LogRecord } from '../storage/port';
import { SessionState } from './session-state';
import type { SessionStore } from './store';

/**
 * fork: copies the path root → entry_id (custom entries on it too, no siblings) into a new session
 * with fresh ids and remapped parents, original timestamps, revisions reset, a compaction record's
 * `first_kept_entry_id` remapped; description and metadata copied; active leaf = the copy of entry_id.
 */
export function fork(store: SessionStore, req: ParsedRequest<'fork'>): Promise<StoreReply<'fork'>> {
  return store.serialized(req.session_id, async () => {
    const src = store.require(req.session_id);
    if (!src.entries.has(req.entry_id)) throw new StoreError(StoreErrorCode.ENTRY_NOT_FOUND, `no entry "${req.entry_id}" in session ${req.session_id}`);
    const path = src.pathTo(req.entry_id);
    const newIds = new Map(path.map((id) => [id, store.ids.newId()]));
    const copies: SessionEntry[] = path.map((id) => {
      const e = src.entries.get(id)!;
      const copy = { ...structuredClone(e), id: newIds.get(id)!, parent_id: e.parent_id === null ? null : newIds.get(e.parent_id)!, revision: 0 };
      if (copy.kind === 'custom' && copy.custom_type === 'compaction' && copy.data && typeof copy.data === 'object') {
        const data = copy.data as Record<string, unknown>;
        const ref = data.first_kept_entry_id;
        if (typeof ref === 'string' && newIds.has(ref)) copy.data = { ...data, first_kept_entry_id: newIds.get(ref) };
      }
      return copy;
    });
    const id = store.ids.newId();
    const now = store.ids.now();
    const meta: SessionMeta = {
      session_id: id,
      title: req.title ?? src.meta.title,
      description: src.meta.description,
      status: 'idle',
      ...(src.meta.metadata !== undefined ? { metadata: structuredClone(src.meta.metadata) } : {}),
      forked_from: req.session_id,
      created_at: now,
      updated_at: now,
      message_count: copies.filter((c) => c.kind === 'message').length,
    };
    const records: LogRecord[] = [{ type: 'meta', meta }, ...copies.map((entry) => ({ type: 'entry' as const, entry })), { type: 'leaf', entry_id: newIds.get(req.entry_id)! }];
    const state = new SessionState();
    store.sessions.set(id, state);
    await store.serialized(id, () => store.commit(id, state, records));
    store.emit('created', id, store.createdPayload(meta));
    return { session_id: id, meta };
  });
}

/** set-active-leaf: moves the leaf to any existing entry, or to the root (null: an empty branch); no event, updated_at unchanged. */
export function setActiveLeaf(store: SessionStore, req: ParsedRequest<'setActiveLeaf'>): Promise<StoreReply<'setActiveLeaf'>> {
  return store.serialized(req.session_id, async () => {
    const s = store.require(req.session_id);
    if (req.entry_id !== null && !s.entries.has(req.entry_id)) throw new StoreError(StoreErrorCode.ENTRY_NOT_FOUND, `no entry "${req.entry_id}" in session ${req.session_id}`);
    if (s.leaf !== req.entry_id) await store.commit(req.session_id, s, [{ type: 'leaf', entry_id: req.entry_id }]);
    return { active_leaf: req.entry_id };
  });
}
