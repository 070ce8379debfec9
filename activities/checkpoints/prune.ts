import fs from 'node:fs/promises';
import path from 'node:path';
import type { FileState } from '../../contracts/checkpoints';
import type { CheckpointStore } from './checkpoint-store';

export interface PruneBounds {
  /** Checkpoints older than this are dropped. */
  maxAgeMs: number;
  /** Kept content above this total drops the oldest checkpoints first. */
  maxBytes: number;
  /** A blob no checkpoint names is removed only once it is this old (a tool may be writing its record). */
  orphanGraceMs: number;
}

export interface PruneReport {
  sessions_removed: number;
  checkpoints_removed: number;
  blobs_removed: number;
  bytes_kept: number;
}

interface Held {
  sessionId: string;
  file: string;
  time: number;
  blobs: string[];
}

/**
 * Drops checkpoints of deleted sessions (`sessionExists` false), those older than `maxAgeMs`, then
 * the oldest until the content they keep fits `maxBytes`, and finally every blob nothing names.
 */
export async function pruneCheckpoints(store: CheckpointStore, bounds: PruneBounds, sessionExists: (id: string) => Promise<boolean>, now = Date.now()): Promise<PruneReport> {
  const report: PruneReport = { sessions_removed: 0, checkpoints_removed: 0, blobs_removed: 0, bytes_kept: 0 };
  const held: Held[] = [];
  for (const sessionId of await store.sessions()) {
    if (!(await sessionExists(sessionId))) {
      await store.deleteSession(sessionId);
      report.sessions_removed += 1;
      continue;
    }
    held.push(...(await recordsOf(store.sessionDir(sessionId), sessionId)));
  }
  const sizes = new Map<string, { size: number; mtimeMs: number }>();
  for await (const b of store.blobs.entries()) sizes.set(b.sha256, { size: b.size, mtimeMs: b.mtimeMs });
  const refs = new Map<string, number>();
  const kept: Held[] = [];
  for (const h of held) {
    if (now - h.time > bounds.maxAgeMs && !h.file.endsWith('redo.json')) {
      await fs.rm(h.file, { force: true });
      report.checkpoints_removed += 1;
      continue;
    }
    kept.push(h);
    for (const sha of h.blobs) refs.set(sha, (refs.get(sha) ?? 0) + 1);
  }
  let total = [...refs.keys()].reduce((n, sha) => n + (sizes.get(sha)?.size ?? 0), 0);
  kept.sort((a, b) => a.time - b.time);
  for (const h of kept) {
    if (total <= bounds.maxBytes) break;
    await fs.rm(h.file, { force: true });
    report.checkpoints_removed += 1;
    for (const sha of h.blobs) {
      const n = (refs.get(sha) ?? 1) - 1;
      if (n > 0) refs.set(sha, n);
      else {
        refs.delete(sha);
        total -= sizes.get(sha)?.size ?? 0;
      }
    }
  }
  for (const [sha, info] of sizes) {
    if (refs.has(sha) || now - info.mtimeMs < bounds.orphanGraceMs) continue;
    await store.blobs.remove(sha);
    report.blobs_removed += 1;
  }
  report.bytes_kept = total;
  return report;
}

/** Every record of a session (pending, done, redo) with the blobs it names. */
async function recordsOf(dir: string, sessionId: string): Promise<Held[]> {
  const out: Held[] = [];
  for (const kind of ['pending', 'done']) {
    const names = await fs.readdir(path.join(dir, kind)).catch(() => [] as string[]);
    for (const name of names) {
      const file = path.join(dir, kind, name);
      const value = await readJson(file);
      if (value) out.push({ sessionId, file, time: typeof value.time === 'number' ? value.time : 0, blobs: blobsIn(value) });
    }
  }
  const redo = await readJson(path.join(dir, 'redo.json'));
  // The redo record lives as long as its session: it is the only way back after a revert.
  if (redo) out.push({ sessionId, file: path.join(dir, 'redo.json'), time: Number.MAX_SAFE_INTEGER, blobs: blobsIn(redo) });
  return out;
}

/** Every sha256 a record's file states name, wherever they sit in it. */
function blobsIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) blobsIn(v, out);
  else if (typeof value === 'object' && value !== null) {
    const s = value as Partial<FileState> & Record<string, unknown>;
    if (s.state === 'file' && typeof s.sha256 === 'string') out.push(s.sha256);
    else for (const v of Object.values(s)) blobsIn(v, out);
  }
  return out;
}

async function readJson(file: string): Promise<Record<string, unknown> | undefined> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
