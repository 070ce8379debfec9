import fs from 'node:fs/promises';
import path from 'node:path';
import type { CheckpointFile, FileState } from '../../contracts/checkpoints';
import { listWorkspaceFiles } from '../tools/file-list';
import type { BlobStore } from './blob-store';
import { captureState, sameContent } from './file-state';

/** How much of a workspace a shell_exec snapshot covers (docs/undo.md). */
export interface SnapshotBounds {
  /** Files listed at most (after the ignore rules); beyond it changes go unseen, and the result says so. */
  maxFiles: number;
  /** A file larger than this is watched by size and time only: a change is reported, not undoable. */
  maxFileBytes: number;
  /** Bytes of content kept per snapshot; files past it are watched by size and time only. */
  maxTotalBytes: number;
}

/** One file as the snapshot saw it: size and time to notice a change cheaply, and its state. */
export interface SnapshotEntry {
  size: number;
  mtimeMs: number;
  state: FileState;
}

/**
 * What an earlier snapshot of the same workspace saw, and when: a file with the same size and time
 * is not read again (its blob is kept already), unless it changed so close to that snapshot that
 * the same time could hide a second change (git's "racily clean" rule).
 */
export interface KnownFiles {
  files: Record<string, SnapshotEntry>;
  takenAt: number;
}

const RACY_MS = 2_000;

export interface WorkspaceSnapshot {
  /** Workspace-relative paths (as list_files shows them). */
  files: Record<string, SnapshotEntry>;
  /** What the snapshot could not cover, in words for the model and the person. */
  notes: string[];
}

/**
 * The workspace's files before a shell command: what list_files would list (its .gitignore rules,
 * never `.git`; in a git repository git lists them, with ls-files, which only reads the index), each
 * with its content kept as a blob within the bounds. Never writes inside the workspace.
 */
export async function snapshotWorkspace(root: string, blobs: BlobStore, bounds: SnapshotBounds, signal: AbortSignal, known?: KnownFiles): Promise<WorkspaceSnapshot> {
  const listing = await watchedFiles(root, bounds, signal);
  const files: Record<string, SnapshotEntry> = {};
  const notes: string[] = [];
  if (listing.truncated) notes.push(`Only the first ${bounds.maxFiles} files of the workspace were watched (STRAND_CHECKPOINT_SHELL_MAX_FILES): changes to others are not undoable.`);
  let kept = 0;
  let overBudget = 0;
  let oversized = 0;
  for (const rel of listing.files) {
    const abs = path.join(root, rel);
    const st = await fs.lstat(abs).catch(() => undefined);
    if (!st) continue;
    const budgetLeft = bounds.maxTotalBytes - kept;
    const limit = Math.min(bounds.maxFileBytes, budgetLeft);
    let state: FileState;
    if (st.isFile() && st.size > limit) {
      const reason = st.size > bounds.maxFileBytes ? `larger than ${bounds.maxFileBytes} bytes` : 'past the snapshot byte budget';
      if (st.size > bounds.maxFileBytes) oversized += 1;
      else overBudget += 1;
      state = { state: 'unsaved', size: st.size, reason };
    } else {
      const seen = known?.files[rel];
      const reusable = seen && seen.state.state === 'file' && seen.size === st.size && seen.mtimeMs === st.mtimeMs && st.mtimeMs < known!.takenAt - RACY_MS;
      state = reusable && (await blobs.has(seen.state.state === 'file' ? seen.state.sha256 : '')) ? seen.state : await captureState(abs, blobs);
      if (state.state === 'file') kept += state.size;
    }
    files[rel] = { size: st.size, mtimeMs: st.mtimeMs, state };
  }
  if (oversized > 0) notes.push(`${oversized} file(s) larger than ${bounds.maxFileBytes} bytes (STRAND_CHECKPOINT_MAX_FILE_BYTES) were watched by size and time only: changes to them are not undoable.`);
  if (overBudget > 0) notes.push(`${overBudget} file(s) past the ${bounds.maxTotalBytes}-byte snapshot budget (STRAND_CHECKPOINT_SHELL_MAX_BYTES) were watched by size and time only.`);
  return { files, notes };
}

/**
 * The files a snapshot watches: what list_files lists, minus anything under `node_modules` (installed
 * dependencies: large, and restored by the package manager, not by undo), even when no .gitignore
 * says so.
 */
async function watchedFiles(root: string, bounds: SnapshotBounds, signal: AbortSignal) {
  const listing = await listWorkspaceFiles(root, root, { signal, maxFiles: bounds.maxFiles, killGraceMs: 1000 });
  return { ...listing, files: listing.files.filter((rel) => !/(^|\/)node_modules\//.test(rel)) };
}

/**
 * What changed since `before`: files created, changed (size or time differ and the content is not
 * the same) or deleted, each with its before-state and its state now (kept as a blob, for redo).
 * A file listed now that the snapshot did not cover because it was cut at `maxFiles` and is older
 * than the snapshot is taken as untouched.
 */
export async function diffWorkspace(
  root: string,
  before: WorkspaceSnapshot,
  blobs: BlobStore,
  bounds: SnapshotBounds,
  signal: AbortSignal,
  takenAt: number,
): Promise<CheckpointFile[]> {
  const listing = await watchedFiles(root, bounds, signal);
  const cut = before.notes.some((n) => n.includes('STRAND_CHECKPOINT_SHELL_MAX_FILES'));
  const changes: CheckpointFile[] = [];
  const seen = new Set<string>();
  for (const rel of listing.files) {
    seen.add(rel);
    const abs = path.join(root, rel);
    const st = await fs.lstat(abs).catch(() => undefined);
    if (!st) continue;
    const was = before.files[rel];
    if (was && was.size === st.size && was.mtimeMs === st.mtimeMs) continue;
    if (!was && cut && st.mtimeMs < takenAt) continue;
    const after = await captureState(abs, blobs, bounds.maxFileBytes);
    const prior: FileState = was ? was.state : cut ? { state: 'unsaved', size: 0, reason: 'not in the snapshot (too many files)' } : { state: 'absent' };
    if (sameContent(prior, after)) continue;
    changes.push({ path: rel, before: prior, after });
  }
  for (const [rel, was] of Object.entries(before.files)) {
    if (seen.has(rel)) continue;
    // Not listed now: deleted, or newly ignored. Only a file that is really gone counts.
    const st = await fs.lstat(path.join(root, rel)).catch(() => undefined);
    if (!st) changes.push({ path: rel, before: was.state, after: { state: 'absent' } });
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
