import { StoreError, StoreErrorCode } from '../../../contracts/session-store/errors';
import type { StoreReply, ParsedRequest } from '../../../contracts/session-store/functions';
import type { SessionEntry, SessionMeta } from '../../../contracts/session-store/schemas';
import type { StoreEventType } from '../../../contracts/session-store/subjects';
import { StorageConflictError, type LogRecord, type RemoteUpdate, type StoragePort } from '../storage/port';
import { decodeCursor, encodeCursor } from './cursor';
import { defaultIdsAndClock, type IdsAndClock } from './ids';
import { appendMany, updateMessage } from './entry-mutations';
import { fork, setActiveLeaf } from './branching';
import { listSessions } from './list';
import { SessionState } from './session-state';

/** Where events go once a mutation is durable. Failures are the publisher's to log, never the caller's. */
export type EventSink = (type: StoreEventType, sessionId: string, payload: Record<string, unknown>) => void;

export interface StoreLimits {
  default_list_limit: number;
  max_list_limit: number;
}

/** Internal signal: the mutation must be computed again on a reloaded session. */
class ConflictRetry extends Error {}
const MAX_CONFLICT_RETRIES = 8;

const notFound = (id: string) => new StoreError(StoreErrorCode.NOT_FOUND, `no session "${id}"`);
const unreadable = (id: string) => new StoreError(StoreErrorCode.STORAGE, `session "${id}" cannot be read from storage right now; retry`);

/**
 * The store's domain: every function's rules over in-memory state, with each mutation made durable
 * through the storage port before state changes are visible and before its event fires. Mutations
 * of one session run one at a time; different sessions proceed in parallel.
 */
export class SessionStore {
  /** Internal to the domain (the other domain files use it); nothing outside domain/ touches it. */
  readonly sessions = new Map<string, SessionState>();
  private readonly locks = new Map<string, Promise<unknown>>();
  loadWarnings: string[] = [];
  /** How many mutations were computed again because another instance wrote first (shared storage). */
  conflictRetries = 0;

  constructor(
    readonly storage: StoragePort,
    private readonly sink: EventSink,
    readonly limits: StoreLimits,
    readonly ids: IdsAndClock = defaultIdsAndClock,
  ) {
    this.shared = typeof storage.follow === 'function';
  }

  /**
   * Storage shared with other instances: a mutation then keeps its session's lock until its write is
   * acknowledged, so remote news and own writes never interleave (and conflicts are detected
   * against exactly the state the mutation was computed on).
   */
  private readonly shared: boolean;
  /**
   * Sessions dropped from memory because storage could not be read when they had to be reloaded:
   * until a reload works they answer `session/storage` (retryable), never "not found".
   */
  private readonly unreadable = new Set<string>();
  /** Sessions with remote news already queued for their lock (one catch-up covers many notices). */
  private readonly catchUpQueued = new Set<string>();

  async load(): Promise<void> {
    await this.loadAll();
    await this.storage.follow?.((id) => this.remoteChanged(id));
  }

  private async loadAll(): Promise<void> {
    const { sessions, warnings } = await this.storage.loadAll();
    for (const [id, records] of sessions) {
      const state = SessionState.replay(records);
      if (state) this.sessions.set(id, state);
      else warnings.push(`session ${id}: log has no meta record; ignored`);
    }
    this.loadWarnings = warnings;
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Per session: settles once every write handed to storage so far has settled (delete waits on it). */
  private readonly lastWrite = new Map<string, Promise<void>>();
  /** Per session: the writes of the mutation now running under the session's lock. */
  private readonly ownWrites = new Map<string, Promise<void>[]>();

  /**
   * Runs `fn` after every earlier mutation of `sessionId` has finished computing, then waits until
   * what it wrote is durable before resolving. The lock is released before that wait, so the next
   * mutation of the session can be computed while this one's fsync runs, and the fs adapter writes
   * both with one fsync (group commit). A reply therefore never precedes durability. When shared
   * storage reports that another instance wrote first, the session is reloaded and `fn` runs again.
   */
  async serialized<T>(sessionId: string, fn: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await (this.shared ? this.serializedShared(sessionId, fn) : this.serializedOnce(sessionId, fn));
      } catch (err) {
        if (err instanceof ConflictRetry && attempt < MAX_CONFLICT_RETRIES) {
          this.conflictRetries++;
          // Jittered backoff, so instances racing on one session stop colliding in lockstep.
          await new Promise((r) => setTimeout(r, Math.random() * 2 ** attempt));
          continue;
        }
        if (err instanceof ConflictRetry) throw new StoreError(StoreErrorCode.STORAGE, `session ${sessionId} kept changing under concurrent writers; retry`);
        throw err;
      }
    }
  }

  /**
   * Shared storage: the mutation is computed on every commit acknowledged so far, by any instance. A
   * mutation that changes nothing (a status already set, a replayed entry id) writes nothing, so no
   * refused publish would reveal that it was computed on a stale state.
   */
  private async serializedShared<T>(sessionId: string, fn: () => Promise<T>): Promise<T> {
    const news = await this.syncShared(sessionId);
    return this.serializedOnce(sessionId, async () => {
      if (news === undefined) await this.reload(sessionId);
      return fn();
    });
  }

  private serializedOnce<T>(sessionId: string, fn: () => Promise<T>): Promise<T> {
    const run = async () => {
      if (this.unreadable.has(sessionId)) {
        await this.reload(sessionId);
        if (this.unreadable.has(sessionId)) throw unreadable(sessionId);
      }
      if (this.shared) for (const update of this.storage.takeRemote?.(sessionId) ?? []) this.applyRemote(sessionId, update);
      const mine: Promise<void>[] = [];
      this.ownWrites.set(sessionId, mine);
      try {
        const value = await fn();
        if (this.shared) await Promise.all(mine);
        return { value, mine };
      } catch (err) {
        // Writes already handed to storage must settle before the caller hears of the failure.
        await Promise.allSettled(mine);
        throw err;
      } finally {
        if (this.ownWrites.get(sessionId) === mine) this.ownWrites.delete(sessionId);
      }
    };
    const prev = this.locks.get(sessionId) ?? Promise.resolve();
    const next = prev.then(run, run);
    const settled = next.then(() => undefined, () => undefined);
    this.locks.set(sessionId, settled);
    void settled.then(() => {
      if (this.locks.get(sessionId) === settled) this.locks.delete(sessionId);
    });
    return next.then(async ({ value, mine }) => {
      await Promise.all(mine);
      return value;
    });
  }

  /**
   * Applies records to the in-memory state at once (later mutations build on them) and hands them to
   * storage. If the write fails, the session is reloaded from storage, so memory never keeps what
   * storage does not have; the mutation's caller gets `session/storage` (or, on a conflict with
   * another instance, the mutation is computed again).
   */
  async commit(sessionId: string, state: SessionState, records: LogRecord[]): Promise<void> {
    // A state object replaced by a reload is stale: what was computed on it must be computed again.
    if (this.sessions.get(sessionId) !== state) throw new ConflictRetry();
    for (const r of records) state.apply(r);
    const write = this.storage.append(sessionId, records).catch(async (err: unknown) => {
      await this.reload(sessionId);
      if (err instanceof StorageConflictError) throw new ConflictRetry();
      throw new StoreError(StoreErrorCode.STORAGE, `could not write session ${sessionId}: ${(err as Error).message}`, { cause: err });
    });
    write.catch(() => undefined);
    this.ownWrites.get(sessionId)?.push(write);
    const before = this.lastWrite.get(sessionId) ?? Promise.resolve();
    const all = Promise.all([before, write.catch(() => undefined)]).then(() => undefined);
    this.lastWrite.set(sessionId, all);
    void all.then(() => this.lastWrite.get(sessionId) === all && this.lastWrite.delete(sessionId));
  }

  /** Fires an event once the running mutation's writes are durable (never if they failed). */
  emit(type: StoreEventType, sessionId: string, payload: Record<string, unknown>): void {
    const mine = this.ownWrites.get(sessionId);
    if (!mine || mine.length === 0) return this.sink(type, sessionId, payload);
    Promise.all([...mine]).then(
      () => this.sink(type, sessionId, payload),
      () => undefined,
    );
  }

  /**
   * Another instance committed to `sessionId`: under the session's lock (where every run first takes
   * the news from storage), apply it. No event fires here: the instance that made the change announced it.
   */
  private remoteChanged(sessionId: string): void {
    if (this.catchUpQueued.has(sessionId)) return;
    this.catchUpQueued.add(sessionId);
    void this.serializedOnce(sessionId, async () => {
      this.catchUpQueued.delete(sessionId);
    }).catch(() => undefined);
  }

  /**
   * Shared storage: brings memory up to every commit acknowledged before the call, by this instance
   * or another, so a read answered here is the read the writer would answer (the service calls it
   * before each read). A session the tail could not deliver in time is reloaded from storage.
   */
  async catchUp(sessionId?: string): Promise<void> {
    const news = await this.syncShared(sessionId, true);
    if (news === undefined && sessionId === undefined) throw new StoreError(StoreErrorCode.STORAGE, 'could not catch up with the other store instances; retry');
    const stale = news ?? [sessionId!];
    if (sessionId !== undefined && this.unreadable.has(sessionId) && !stale.includes(sessionId)) stale.push(sessionId);
    await Promise.all(stale.map((id) => this.serializedOnce(id, async () => (news === undefined ? this.reload(id) : undefined))));
  }

  /** What shared storage has of other instances' commits: sessions with news ([] when not shared). */
  private async syncShared(sessionId?: string, forRead = false): Promise<string[] | undefined> {
    if (!this.storage.sync) return [];
    try {
      return await this.storage.sync(sessionId, forRead);
    } catch (err) {
      throw new StoreError(StoreErrorCode.STORAGE, `could not read what other store instances wrote: ${(err as Error).message}`, { cause: err });
    }
  }

  private applyRemote(sessionId: string, update: RemoteUpdate): void {
    if ('deleted' in update) {
      this.sessions.delete(sessionId);
      return;
    }
    let state = this.sessions.get(sessionId);
    if (!state) {
      state = new SessionState();
      this.sessions.set(sessionId, state);
    }
    for (const r of update.records) state.apply(r);
    if (!state.meta) this.sessions.delete(sessionId);
  }

  /**
   * Rebuilds one session from storage after a failed write (or drops it if nothing is stored). If
   * storage cannot be read either, the session leaves memory (it may hold what was never written)
   * and is loaded again in the background, with backoff, once storage answers.
   */
  private async reload(sessionId: string, retryDelayMs = 250): Promise<void> {
    let records: LogRecord[] | undefined;
    try {
      records = await this.storage.loadOne(sessionId);
    } catch {
      this.sessions.delete(sessionId);
      this.unreadable.add(sessionId);
      const timer = setTimeout(() => {
        void this.serializedOnce(sessionId, async () => {
          if (this.unreadable.has(sessionId)) await this.reload(sessionId, Math.min(retryDelayMs * 2, 30_000));
        }).catch(() => undefined);
      }, retryDelayMs);
      timer.unref();
      return;
    }
    this.unreadable.delete(sessionId);
    const state = records ? SessionState.replay(records) : undefined;
    if (state) this.sessions.set(sessionId, state);
    else this.sessions.delete(sessionId);
  }

  require(sessionId: string): SessionState {
    if (this.unreadable.has(sessionId)) throw unreadable(sessionId);
    const s = this.sessions.get(sessionId);
    if (!s) throw notFound(sessionId);
    return s;
  }

  createdPayload(meta: SessionMeta) {
    return {
      session_id: meta.session_id,
      title: meta.title,
      description: meta.description,
      status: meta.status,
      created_at: meta.created_at,
      ...(meta.forked_from !== undefined ? { forked_from: meta.forked_from } : {}),
      ...(meta.metadata !== undefined ? { metadata: meta.metadata } : {}),
    };
  }

  private async createWithId(sessionId: string, req: ParsedRequest<'create'>): Promise<SessionMeta> {
    const now = this.ids.now();
    const meta: SessionMeta = {
      session_id: sessionId,
      title: req.title ?? '',
      description: req.description ?? '',
      status: 'idle',
      ...(req.metadata !== undefined ? { metadata: req.metadata } : {}),
      created_at: now,
      updated_at: now,
      message_count: 0,
    };
    const state = new SessionState();
    this.sessions.set(sessionId, state);
    await this.commit(sessionId, state, [{ type: 'meta', meta }]);
    this.emit('created', sessionId, this.createdPayload(meta));
    return meta;
  }

  async create(req: ParsedRequest<'create'>): Promise<StoreReply<'create'>> {
    const id = this.ids.newId();
    const meta = await this.serialized(id, () => this.createWithId(id, req));
    return { session_id: id, meta };
  }

  async ensure(req: ParsedRequest<'ensure'>): Promise<StoreReply<'ensure'>> {
    return this.serialized(req.session_id, async () => {
      const existing = this.sessions.get(req.session_id);
      if (existing) return { session_id: req.session_id, meta: existing.meta, created: false };
      const { session_id: _id, ...rest } = req;
      const meta = await this.createWithId(req.session_id, rest);
      return { session_id: req.session_id, meta, created: true };
    });
  }

  /**
   * A session's state for a read. A session that could not be reloaded from storage (it left memory,
   * see `reload`) is `session/storage`, retryable: answering "no such session" would tell a client
   * that a stored session is gone, and it may drop it.
   */
  private readable(sessionId: string): SessionState | undefined {
    if (this.unreadable.has(sessionId)) throw unreadable(sessionId);
    return this.sessions.get(sessionId);
  }

  get(req: ParsedRequest<'get'>): StoreReply<'get'> {
    const s = this.readable(req.session_id);
    return s ? { meta: s.meta } : null;
  }

  list(req: ParsedRequest<'list'>): StoreReply<'list'> {
    return listSessions([...this.sessions.values()].map((s) => s.meta), req, this.limits);
  }

  async setMeta(req: ParsedRequest<'setMeta'>): Promise<StoreReply<'setMeta'>> {
    return this.serialized(req.session_id, async () => {
      const s = this.require(req.session_id);
      const patch = req.metadata_patch;
      if (patch !== undefined && req.metadata !== undefined) {
        throw new StoreError(StoreErrorCode.INVALID_REQUEST, 'give either metadata (replaces it) or metadata_patch (changes keys), not both');
      }
      const patched = patch === undefined || Object.keys(patch).length === 0 ? undefined : applyMetadataPatch(s.meta.metadata, patch);
      const metadata = req.metadata ?? patched;
      if (req.title === undefined && req.description === undefined && metadata === undefined) return { meta: s.meta };
      const now = this.ids.now();
      const meta: SessionMeta = {
        ...s.meta,
        ...(req.title !== undefined ? { title: req.title } : {}),
        ...(req.description !== undefined ? { description: req.description } : {}),
        ...(metadata !== undefined ? { metadata } : {}),
        updated_at: now,
      };
      await this.commit(req.session_id, s, [{ type: 'meta', meta }]);
      this.emit('meta-updated', req.session_id, {
        session_id: meta.session_id,
        title: meta.title,
        description: meta.description,
        ...(meta.metadata !== undefined ? { metadata: meta.metadata } : {}),
        timestamp: now,
      });
      return { meta };
    });
  }

  async setStatus(req: ParsedRequest<'setStatus'>): Promise<StoreReply<'setStatus'>> {
    return this.serialized(req.session_id, async () => {
      const s = this.require(req.session_id);
      const previous = s.meta.status;
      if (previous === req.status) return { status: previous, previous_status: previous };
      const now = this.ids.now();
      const { status_reason: _old, ...rest } = s.meta;
      const meta: SessionMeta = {
        ...rest,
        status: req.status,
        ...(req.status === 'error' && req.reason !== undefined ? { status_reason: req.reason } : {}),
        updated_at: now,
      };
      await this.commit(req.session_id, s, [{ type: 'meta', meta }]);
      this.emit('status-changed', req.session_id, {
        session_id: meta.session_id,
        status: meta.status,
        previous_status: previous,
        ...(meta.status_reason !== undefined ? { status_reason: meta.status_reason } : {}),
        timestamp: now,
      });
      return { status: meta.status, previous_status: previous };
    });
  }

  async append(req: ParsedRequest<'append'>): Promise<StoreReply<'append'>> {
    return this.serialized(req.session_id, async () => {
      const s = this.require(req.session_id);
      if (req.entry_id !== undefined) {
        const existing = s.entries.get(req.entry_id);
        if (existing) return { entry_id: existing.id, parent_id: existing.parent_id, timestamp: existing.timestamp };
      }
      const parent = req.parent_id !== undefined ? req.parent_id : s.leaf;
      if (req.parent_id !== undefined && !s.entries.has(req.parent_id)) {
        throw new StoreError(StoreErrorCode.PARENT_NOT_FOUND, `no entry "${req.parent_id}" in session ${req.session_id}`);
      }
      const now = this.ids.now();
      const id = req.entry_id ?? this.ids.newId();
      const base = { id, parent_id: parent, timestamp: now, revision: 0, ...(req.origin !== undefined ? { origin: req.origin } : {}) };
      const entry: SessionEntry = req.message
        ? { kind: 'message', ...base, message: req.message }
        : { kind: 'custom', ...base, custom_type: req.custom!.custom_type, ...(req.custom!.data !== undefined ? { data: req.custom!.data } : {}) };
      const records: LogRecord[] = [{ type: 'entry', entry }, { type: 'leaf', entry_id: id }];
      const meta: SessionMeta = { ...s.meta, updated_at: now, message_count: s.meta.message_count + (entry.kind === 'message' ? 1 : 0) };
      records.push({ type: 'meta', meta });
      await this.commit(req.session_id, s, records);
      this.emit('message-added', req.session_id, {
        session_id: req.session_id,
        entry_id: id,
        parent_id: parent,
        ...(entry.kind === 'message' ? { message: entry.message } : { custom: { custom_type: entry.custom_type, data: entry.data } }),
        ...(req.origin !== undefined ? { origin: req.origin } : {}),
        timestamp: now,
      });
      return { entry_id: id, parent_id: parent, timestamp: now };
    });
  }

  appendMany = (req: ParsedRequest<'appendMany'>) => appendMany(this, req);
  updateMessage = (req: ParsedRequest<'updateMessage'>) => updateMessage(this, req);
  fork = (req: ParsedRequest<'fork'>) => fork(this, req);
  setActiveLeaf = (req: ParsedRequest<'setActiveLeaf'>) => setActiveLeaf(this, req);

  /** Removes a session and its file; forks of it keep their own copies. */
  async delete(req: ParsedRequest<'delete'>): Promise<StoreReply<'delete'>> {
    return this.serialized(req.session_id, async () => {
      if (!this.sessions.has(req.session_id)) return { deleted: false };
      const metadata = this.sessions.get(req.session_id)!.meta.metadata;
      await this.lastWrite.get(req.session_id)?.catch(() => undefined);
      try {
        await this.storage.remove(req.session_id);
      } catch (err) {
        if (err instanceof StorageConflictError) {
          await this.reload(req.session_id);
          throw new ConflictRetry();
        }
        throw new StoreError(StoreErrorCode.STORAGE, `could not delete session ${req.session_id}: ${(err as Error).message}`, { cause: err });
      }
      this.sessions.delete(req.session_id);
      this.emit('deleted', req.session_id, { session_id: req.session_id, timestamp: this.ids.now(), ...(metadata !== undefined ? { metadata } : {}) });
      return { deleted: true };
    });
  }

  getMessage(req: ParsedRequest<'getMessage'>): StoreReply<'getMessage'> {
    const entry = this.readable(req.session_id)?.entries.get(req.entry_id);
    return entry ? { entry } : null;
  }

  /** A page of the active path (or of root → from_entry_id), oldest first. */
  messages(req: ParsedRequest<'messages'>): StoreReply<'messages'> {
    const s = this.readable(req.session_id);
    if (!s) return null;
    if (req.from_entry_id !== undefined && !s.entries.has(req.from_entry_id)) {
      throw new StoreError(StoreErrorCode.ENTRY_NOT_FOUND, `no entry "${req.from_entry_id}" in session ${req.session_id}`);
    }
    const tip = req.from_entry_id ?? s.leaf;
    const path = s.pathTo(tip);
    const limit = clamp(req.limit, this.limits);
    let start = 0;
    if (req.cursor !== undefined) {
      const c = decodeCursor(req.cursor);
      const pos = typeof c.p === 'number' ? c.p : -1;
      if (c.k !== 'messages' || c.s !== req.session_id || c.t !== tip || pos < 1 || path[pos - 1] !== c.a) {
        throw new StoreError(StoreErrorCode.INVALID_CURSOR, 'cursor is stale or belongs to another session, branch or query');
      }
      start = pos;
    }
    const roles = req.roles ? new Set<string>(req.roles) : undefined;
    const includeCustom = req.include_custom === true && roles === undefined;
    const out: NonNullable<StoreReply<'messages'>>['messages'] = [];
    let i = start;
    for (; i < path.length && out.length < limit; i++) {
      const e = s.entries.get(path[i]!)!;
      const origin = e.origin !== undefined ? { origin: e.origin } : {};
      if (e.kind === 'message') {
        if (roles && !roles.has(e.message.role)) continue;
        out.push({ entry_id: e.id, message: e.message, ...origin });
      } else if (includeCustom) {
        out.push({ entry_id: e.id, custom: { custom_type: e.custom_type, ...(e.data !== undefined ? { data: e.data } : {}) }, ...origin });
      }
    }
    const more = i < path.length;
    return { messages: out, ...(more ? { next_cursor: encodeCursor({ k: 'messages', s: req.session_id, t: tip, p: i, a: path[i - 1] }) } : {}) };
  }
}

export function clamp(limit: number | undefined, limits: StoreLimits): number {
  if (limit === undefined) return Math.min(limits.default_list_limit, limits.max_list_limit);
  return Math.max(1, Math.min(limit, limits.max_list_limit));
}

/** `metadata_patch`: given keys replace, `null` removes, the rest stays. */
function applyMetadataPatch(current: Record<string, unknown> | undefined, patch: Record<string, unknown>): Record<string, unknown> {
  const next: Record<string, unknown> = { ...(current ?? {}) };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}
