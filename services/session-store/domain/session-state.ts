import type { SessionEntry, SessionMeta } from '../../../contracts/session-store/schemas';
import type { LogRecord } from '../storage/port';

/**
 * One session in memory: meta, every entry by id, the active leaf, and the active path (root → leaf)
 * with each entry's position, so a page of `messages` costs O(page), not O(session).
 */
export class SessionState {
  meta!: SessionMeta;
  readonly entries = new Map<string, SessionEntry>();
  leaf: string | null = null;
  private path: string[] | null = [];
  private position = new Map<string, number>();

  /** Rebuilds a session from its log, last record wins. */
  static replay(records: LogRecord[]): SessionState | undefined {
    const s = new SessionState();
    let hasMeta = false;
    for (const r of records) s.apply(r, () => (hasMeta = true));
    if (!hasMeta) return undefined;
    s.path = null;
    return s;
  }

  /** Applies one record (the same code path for replay and for live mutations). */
  apply(record: LogRecord, onMeta?: () => void): void {
    if (record.type === 'meta') {
      this.meta = record.meta;
      onMeta?.();
    } else if (record.type === 'entry') {
      this.entries.set(record.entry.id, record.entry);
    } else {
      this.moveLeaf(record.entry_id);
    }
  }

  /** Moves the leaf; extends the cached path when the new leaf is a child of the old one. */
  private moveLeaf(entryId: string | null): void {
    const entry = entryId === null ? undefined : this.entries.get(entryId);
    if (this.path && entry && entry.parent_id === this.leaf && !this.position.has(entry.id)) {
      this.position.set(entry.id, this.path.length);
      this.path.push(entry.id);
    } else {
      this.path = null;
    }
    this.leaf = entryId;
  }

  /** Ids on the path root → `tip` (the active path when `tip` is the leaf). */
  pathTo(tip: string | null): string[] {
    if (tip === this.leaf) return this.activePath();
    return this.walk(tip);
  }

  activePath(): string[] {
    if (!this.path) {
      this.path = this.walk(this.leaf);
      this.position = new Map(this.path.map((id, i) => [id, i]));
    }
    return this.path;
  }

  private walk(tip: string | null): string[] {
    const out: string[] = [];
    const seen = new Set<string>();
    for (let id = tip; id !== null; ) {
      if (seen.has(id)) break; // A corrupt cycle must not hang the store.
      seen.add(id);
      const e = this.entries.get(id);
      if (!e) break;
      out.push(id);
      id = e.parent_id;
    }
    return out.reverse();
  }
}
