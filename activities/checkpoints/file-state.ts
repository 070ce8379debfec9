import fs from 'node:fs/promises';
import path from 'node:path';
import type { FileState } from '../../contracts/checkpoints';
import { randomUUID } from 'node:crypto';
import { BlobStore } from './blob-store';

function errnoCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

/**
 * The state of `abs` now, its content kept in `blobs` (a regular file), or only its size when it is
 * larger than `maxBytes` (`unsaved`: a change to it can be seen, not undone).
 */
export async function captureState(abs: string, blobs: BlobStore, maxBytes = Number.POSITIVE_INFINITY): Promise<FileState> {
  return stateOf(abs, maxBytes, (bytes) => blobs.put(bytes));
}

/** The state of `abs` now, compared by content only (no blob written): for conflict checks. */
export async function currentDigest(abs: string): Promise<FileState> {
  return stateOf(abs, Number.POSITIVE_INFINITY, async (bytes) => BlobStore.digest(bytes));
}

/** What is at `abs`: absent, a symlink, something not a file, or a file whose bytes `digest` names. */
async function stateOf(abs: string, maxBytes: number, digest: (bytes: Buffer) => Promise<string>): Promise<FileState> {
  let st;
  try {
    st = await fs.lstat(abs);
  } catch (err) {
    if (errnoCode(err) === 'ENOENT' || errnoCode(err) === 'ENOTDIR') return { state: 'absent' };
    throw err;
  }
  if (st.isSymbolicLink()) return { state: 'symlink', target: await fs.readlink(abs) };
  if (!st.isFile()) return { state: 'unsaved', size: 0, reason: 'not a regular file' };
  if (st.size > maxBytes) return { state: 'unsaved', size: st.size, reason: `larger than ${maxBytes} bytes` };
  const bytes = await fs.readFile(abs);
  return { state: 'file', sha256: await digest(bytes), size: bytes.length, mode: st.mode & 0o7777 };
}

/** Whether two states name the same content (mode aside: a chmod alone is no conflict). */
export function sameContent(a: FileState, b: FileState): boolean {
  if (a.state !== b.state) return false;
  if (a.state === 'file' && b.state === 'file') return a.sha256 === b.sha256;
  if (a.state === 'symlink' && b.state === 'symlink') return a.target === b.target;
  return a.state === 'absent';
}

/** Puts `abs` into `state` (an `unsaved` state cannot be restored: the caller skips it). */
export async function restoreState(abs: string, state: FileState, blobs: BlobStore): Promise<'write' | 'delete'> {
  if (state.state === 'absent') {
    await fs.rm(abs, { force: true });
    return 'delete';
  }
  await fs.mkdir(path.dirname(abs), { recursive: true });
  if (state.state === 'symlink') {
    await fs.rm(abs, { force: true });
    await fs.symlink(state.target, abs);
    return 'write';
  }
  if (state.state === 'unsaved') throw new Error(`the earlier content of ${abs} was not kept`);
  // A symlink in the way is replaced, not written through.
  const st = await fs.lstat(abs).catch(() => undefined);
  if (st && !st.isFile()) await fs.rm(abs, { force: true });
  // Temporary file then rename: a crash leaves the old or the restored content, never half of it.
  const tmp = path.join(path.dirname(abs), `.${path.basename(abs)}.strand-${randomUUID().slice(0, 8)}.tmp`);
  try {
    await fs.writeFile(tmp, await blobs.get(state.sha256), { mode: state.mode });
    await fs.chmod(tmp, state.mode);
    await fs.rename(tmp, abs);
  } catch (err) {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
  return 'write';
}
