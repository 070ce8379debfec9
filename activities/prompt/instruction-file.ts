import { isUtf8 } from 'node:buffer';
import fs from 'node:fs/promises';
import path from 'node:path';

/** The instruction files of one directory, by preference: CLAUDE.md only stands in for a missing AGENTS.md. */
export const INSTRUCTION_FILE_NAMES = ['AGENTS.md', 'CLAUDE.md'] as const;

export type InstructionRead =
  | { kind: 'absent' }
  | { kind: 'skipped'; reason: string }
  /** `bytes` holds at most the first `maxBytes` of the file (whole characters); `size` is the whole file's. */
  | { kind: 'read'; bytes: Buffer; size: number };

/**
 * Reads one instruction file, at most `maxBytes` of it (a huge file is not loaded only to be cut).
 * Never throws: a file that cannot be used (unreadable, not a regular file, not UTF-8, a symlink
 * leading outside the repository) is `skipped` with the reason, so a turn never fails over it.
 */
export async function readInstructionFile(file: string, repositoryRoot: string, maxBytes: number): Promise<InstructionRead> {
  try {
    await fs.lstat(file);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? { kind: 'absent' } : { kind: 'skipped', reason: describe(err) };
  }
  let real: string;
  try {
    real = await fs.realpath(file);
  } catch (err) {
    return { kind: 'skipped', reason: (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'a symlink to a file that does not exist' : describe(err) };
  }
  // The repository's own files only: a link out of it could put any file the worker can read into the prompt.
  if (real !== file && !isInside(real, repositoryRoot)) return { kind: 'skipped', reason: 'a symlink to outside the repository' };
  let handle: fs.FileHandle | undefined;
  try {
    // Checked before opening: opening a FIFO named AGENTS.md would wait for a writer forever.
    const stat = await fs.stat(real);
    if (!stat.isFile()) return { kind: 'skipped', reason: stat.isDirectory() ? 'a directory, not a file' : 'not a regular file' };
    handle = await fs.open(real, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    const wanted = Math.min(stat.size, maxBytes);
    const buffer = Buffer.alloc(wanted);
    let filled = 0;
    while (filled < wanted) {
      const { bytesRead } = await handle.read(buffer, filled, wanted - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    // A prefix may end inside a character: that is the cut's doing, not the file's.
    const bytes = filled < stat.size ? wholeCharacters(buffer.subarray(0, filled)) : buffer.subarray(0, filled);
    if (!isUtf8(bytes)) return { kind: 'skipped', reason: 'not valid UTF-8' };
    return { kind: 'read', bytes, size: Math.max(stat.size, filled) };
  } catch (err) {
    return { kind: 'skipped', reason: describe(err) };
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** The longest prefix of `bytes` that does not end inside a UTF-8 character. */
export function wholeCharacters(bytes: Buffer): Buffer {
  let end = bytes.length;
  // Step back over continuation bytes (10xxxxxx) to the lead byte of the last character.
  let lead = end - 1;
  while (lead >= 0 && end - lead <= 4 && (bytes[lead]! & 0xc0) === 0x80) lead -= 1;
  if (lead < 0) return bytes.subarray(0, end);
  const first = bytes[lead]!;
  const length = first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 1;
  if (lead + length > end) end = lead;
  return bytes.subarray(0, end);
}

function isInside(file: string, dir: string): boolean {
  const rel = path.relative(dir, file);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

function describe(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ELOOP') return 'a symlink loop';
  return code ? `unreadable (${code})` : `unreadable (${(err as Error).message})`;
}
