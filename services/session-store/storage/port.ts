import type { SessionEntry, SessionMeta } from '../../../contracts/session-store/schemas';

/** One record of a session's append-only log; replay is last-wins per meta / entry id / leaf. */
export type LogRecord =
  | { type: 'meta'; meta: SessionMeta }
  | { type: 'entry'; entry: SessionEntry }
  | { type: 'leaf'; entry_id: string | null };

/** What another store instance committed to shared storage: new records, or the session's deletion. */
export type RemoteUpdate = { records: LogRecord[] } | { deleted: true };

/**
 * Raised by shared storage when another instance wrote to the session since this one last read it
 * (optimistic concurrency). The domain reloads the session and computes the mutation again.
 */
export class StorageConflictError extends Error {
  override readonly name = 'StorageConflictError';
}

/** What a storage adapter found when loading: every session's records, and what it had to skip. */
export interface LoadResult {
  sessions: Map<string, LogRecord[]>;
  warnings: string[];
}

/**
 * The storage port. Contract:
 * - `append` makes the records durable (or throws) before it resolves; records of one call are
 *   written in order and, after a crash, replay yields a prefix of them at worst. Calls for one
 *   session may overlap (the domain pipelines them); they are written in call order, and once one
 *   fails every later one for that session fails too, until `loadOne` is called for it.
 * - The domain serializes calls per session; adapters may run different sessions in parallel.
 * - `remove` deletes every record of the session; a later append starts a fresh log.
 * - `loadAll` never fails because of one damaged record: it skips it and reports it in `warnings`.
 */
export interface StoragePort {
  readonly name: string;
  loadAll(): Promise<LoadResult>;
  /**
   * Re-reads one session (after a failed write) and clears whatever made the adapter refuse writes
   * to it; undefined when nothing is stored.
   */
  loadOne(sessionId: string): Promise<LogRecord[] | undefined>;
  append(sessionId: string, records: LogRecord[]): Promise<void>;
  remove(sessionId: string): Promise<void>;
  /**
   * Shared storage only (several store instances on one state). `follow` starts tailing what other
   * instances commit after `loadAll` and calls `changed` for each session that has news; the domain
   * then takes the news with `takeRemote` under the session's lock, so it never interleaves with the
   * session's own writes. `takeRemote` returns, in commit order, only what memory does not have yet.
   * Shared storage reports a lost race with StorageConflictError from `append`.
   */
  follow?(changed: (sessionId: string) => void): Promise<void>;
  takeRemote?(sessionId: string): RemoteUpdate[];
  /**
   * Shared storage only: resolves once everything committed to `sessionId` (to any session when
   * omitted) before the call is in memory or waiting for `takeRemote`, with the sessions that have
   * news waiting; undefined when the tail could not get there in time. `forRead`: the caller is about
   * to answer a read of `sessionId`, and storage must throw rather than let it answer "no such
   * session" when it cannot be sure the session does not exist (a stream leader just elected).
   */
  sync?(sessionId?: string, forRead?: boolean): Promise<string[] | undefined>;
  close(): Promise<void>;
}
