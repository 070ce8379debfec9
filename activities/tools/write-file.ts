import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { WriteFileParams } from '../../contracts/tools';
import { resolveInWorkspace } from './paths';
import { describeFsError, errnoCode, fail, ok, type ToolContext, type ToolResult } from './types';

/**
 * Whether writing `content` to `abs` would change nothing (the file exists with exactly these
 * bytes). A tool activity re-run after a worker crash finds its earlier write done this way.
 */
export async function isWriteNoop(abs: string, content: string): Promise<boolean> {
  try {
    const st = await fs.stat(abs);
    if (!st.isFile() || st.size !== Buffer.byteLength(content, 'utf8')) return false;
    return (await fs.readFile(abs, 'utf8')) === content;
  } catch {
    return false;
  }
}

/**
 * Replaces a file's content all at once: written to a temporary file beside it, then renamed over
 * it. A crash mid-write leaves the old or the new content, never half of it, which is what lets a
 * re-run edit recognise itself. An existing file keeps its permission bits.
 */
export async function writeFileAtomic(abs: string, content: string): Promise<void> {
  const dir = path.dirname(abs);
  const tmp = path.join(dir, `.${path.basename(abs)}.strand-${randomUUID().slice(0, 8)}.tmp`);
  const mode = await fs
    .stat(abs)
    .then((st) => st.mode & 0o7777)
    .catch(() => undefined);
  try {
    await fs.writeFile(tmp, content, { encoding: 'utf8', mode: mode ?? 0o666 });
    if (mode !== undefined) await fs.chmod(tmp, mode);
    await fs.rename(tmp, abs);
  } catch (err) {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}

/** write_file: creates parent directories; identical content is a successful no-op. */
export async function writeFile(params: WriteFileParams, ctx: ToolContext): Promise<ToolResult> {
  const resolved = await resolveInWorkspace(ctx.workspace, params.path);
  if (!resolved.ok) return fail(resolved.error);
  const { abs, rel, root } = resolved.path;
  if (abs === root) return fail('write_file needs a file path, not the workspace root.');
  const bytes = Buffer.byteLength(params.content, 'utf8');
  const lines = params.content === '' ? 0 : params.content.split('\n').length - (params.content.endsWith('\n') ? 1 : 0);
  // file_changes is reported even for a no-op: after a crash the first run's file.changed was never announced.
  const change = [{ path: rel, operation: 'write' as const }];
  if (await isWriteNoop(abs, params.content)) {
    return ok(`${rel} already has this content (${bytes} bytes); nothing changed.`, { details: { path: rel, bytes, unchanged: true }, file_changes: change });
  }
  let existed: boolean;
  try {
    const st = await fs.stat(abs).catch((err: unknown) => {
      if (errnoCode(err) === 'ENOENT') return undefined;
      throw err;
    });
    if (st?.isDirectory()) return fail(`${rel} is a directory; give a file path.`);
    existed = st !== undefined;
    await fs.mkdir(path.dirname(abs), { recursive: true });
    await writeFileAtomic(abs, params.content);
  } catch (err) {
    return fail(`Could not write ${rel}: ${describeFsError(err, rel)}`);
  }
  const verb = existed ? 'Wrote' : 'Created';
  return ok(`${verb} ${rel} (${lines} lines, ${bytes} bytes).`, { details: { path: rel, bytes, lines, created: !existed }, file_changes: change });
}
