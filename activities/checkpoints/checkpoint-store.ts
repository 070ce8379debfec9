import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { checkpointRecordSchema, type CheckpointFile, type CheckpointRecord, type CheckpointTool, type FileState } from '../../contracts/checkpoints';
import { BlobStore } from './blob-store';
import type { SnapshotEntry } from './workspace-snapshot';

/**
 * What a tool call's workspace looked like before it ran: the states of the paths it names
 * (write/edit/delete) or a snapshot of the workspace (shell_exec). Written once, before the tool
 * acts; a retried activity finds it and keeps it (first write wins), so the post-change state of an
 * interrupted first attempt is never taken for the "before".
 */
export interface PendingCheckpoint {
  entry_id: string;
  turn_id: string;
  tool: CheckpointTool;
  time: number;
  workspace: string;
  paths?: Record<string, FileState>;
  snapshot?: { files: Record<string, SnapshotEntry>; notes: string[] };
}

/** The redo record a revert leaves: what a redo re-applies, and the leaves it moves between. */
export interface RedoRecord {
  /** The revert that made it (a retried revert activity recognises its own). */
  revert_id: string;
  entry_ids: string[];
  workspace: string;
  files: CheckpointFile[];
  /** The leaf before the revert (a redo returns to it) and after it (a new entry since drops redo). */
  leaf_before: string | null;
  leaf_after: string | null;
}

/** A file-name-safe, reversible spelling of an id. */
function token(id: string): string {
  return /^[A-Za-z0-9._:-]+$/.test(id) && !id.startsWith('.') ? id : `~${Buffer.from(id, 'utf8').toString('base64url')}`;
}

/**
 * Checkpoints on the worker's disk, outside any project (STRAND_CHECKPOINT_DIR):
 * `blobs/<sha[0:2]>/<sha>` (contents, shared by all sessions), and per session
 * `sessions/<id>/pending/<entry>.json`, `sessions/<id>/done/<entry>.json` and `sessions/<id>/redo.json`.
 */
export class CheckpointStore {
  readonly blobs: BlobStore;

  constructor(readonly root: string) {
    this.blobs = new BlobStore(path.join(root, 'blobs'));
  }

  sessionDir(sessionId: string): string {
    return path.join(this.root, 'sessions', token(sessionId));
  }

  private file(sessionId: string, kind: 'pending' | 'done', entryId: string): string {
    return path.join(this.sessionDir(sessionId), kind, `${token(entryId)}.json`);
  }

  /** Records the before-state unless one is recorded already; answers the one that counts. */
  async recordBefore(sessionId: string, pending: PendingCheckpoint): Promise<PendingCheckpoint> {
    const target = this.file(sessionId, 'pending', pending.entry_id);
    await fs.mkdir(path.dirname(target), { recursive: true });
    const tmp = `${target}.${randomUUID().slice(0, 8)}.tmp`;
    await fs.writeFile(tmp, JSON.stringify(pending));
    try {
      // link() fails when the target exists: an atomic "create if absent" of a complete file.
      await fs.link(tmp, target);
      return pending;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      return JSON.parse(await fs.readFile(target, 'utf8')) as PendingCheckpoint;
    } finally {
      await fs.rm(tmp, { force: true });
    }
  }

  async pending(sessionId: string, entryId: string): Promise<PendingCheckpoint | undefined> {
    return readJson(this.file(sessionId, 'pending', entryId)) as Promise<PendingCheckpoint | undefined>;
  }

  /** Writes (or rewrites) a finished call's checkpoint. A call that changed nothing leaves none. */
  async saveDone(sessionId: string, record: CheckpointRecord): Promise<void> {
    const target = this.file(sessionId, 'done', record.entry_id);
    if (record.files.length === 0 && !record.notes?.length) {
      await fs.rm(target, { force: true });
      return;
    }
    await writeJsonAtomic(target, record);
  }

  /** A session's finished checkpoints, oldest first. */
  async list(sessionId: string): Promise<CheckpointRecord[]> {
    const dir = path.join(this.sessionDir(sessionId), 'done');
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    const out: CheckpointRecord[] = [];
    for (const name of names) {
      if (!name.endsWith('.json')) continue;
      const parsed = checkpointRecordSchema.safeParse(await readJson(path.join(dir, name)));
      if (parsed.success) out.push(parsed.data);
    }
    return out.sort(checkpointOrder);
  }

  async setReverted(sessionId: string, entryIds: readonly string[], reverted: boolean): Promise<void> {
    for (const id of entryIds) {
      const parsed = checkpointRecordSchema.safeParse(await readJson(this.file(sessionId, 'done', id)));
      if (!parsed.success) continue;
      const { reverted: _old, ...rest } = parsed.data;
      await writeJsonAtomic(this.file(sessionId, 'done', id), reverted ? { ...rest, reverted: true } : rest);
    }
  }

  async redo(sessionId: string): Promise<RedoRecord | undefined> {
    return (await readJson(path.join(this.sessionDir(sessionId), 'redo.json'))) as RedoRecord | undefined;
  }

  async setRedo(sessionId: string, record: RedoRecord | undefined): Promise<void> {
    const target = path.join(this.sessionDir(sessionId), 'redo.json');
    if (record) await writeJsonAtomic(target, record);
    else await fs.rm(target, { force: true });
  }

  async deleteSession(sessionId: string): Promise<void> {
    await fs.rm(this.sessionDir(sessionId), { recursive: true, force: true });
  }

  /** Session ids that have checkpoints. */
  async sessions(): Promise<string[]> {
    const names = await fs.readdir(path.join(this.root, 'sessions')).catch(() => [] as string[]);
    return names.map((n) => (n.startsWith('~') ? Buffer.from(n.slice(1), 'base64url').toString('utf8') : n));
  }
}

/** Turn number first (t10 after t9), then when the call started, then its id: a stable total order. */
export function checkpointOrder(a: CheckpointRecord, b: CheckpointRecord): number {
  return turnNumber(a.turn_id) - turnNumber(b.turn_id) || a.time - b.time || (a.entry_id < b.entry_id ? -1 : a.entry_id > b.entry_id ? 1 : 0);
}

export function turnNumber(turnId: string): number {
  const m = /^t(\d+)$/.exec(turnId);
  return m ? Number(m[1]) : 0;
}

async function readJson(file: string): Promise<unknown> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${randomUUID().slice(0, 8)}.tmp`;
  await fs.writeFile(tmp, JSON.stringify(value));
  await fs.rename(tmp, file);
}
