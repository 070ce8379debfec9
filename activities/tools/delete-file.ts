import fs from 'node:fs/promises';
import path from 'node:path';
import type { DeleteFileParams } from '../../contracts/tools';
import { resolveInWorkspace } from './paths';
import { describeFsError, errnoCode, fail, ok, type ToolContext, type ToolResult } from './types';

/**
 * delete_file: one regular file. Directories are refused (a recursive delete is a shell command the
 * user approves knowingly). A missing file is an error: it usually means a wrong path, and the model
 * should know; a re-run after a crash sees the same message and can check with list_files.
 */
export async function deleteFile(params: DeleteFileParams, ctx: ToolContext): Promise<ToolResult> {
  // A symbolic link is deleted itself, not its target: resolve the parent directory, keep the name.
  const trimmed = params.path.replace(/[\\/]+$/, '');
  const name = path.basename(trimmed);
  if (name === '' || name === '.' || name === '..' || trimmed === '') return fail(`delete_file needs a file path; ${JSON.stringify(params.path)} names a directory.`);
  const parent = await resolveInWorkspace(ctx.workspace, path.dirname(trimmed));
  if (!parent.ok) return fail(parent.error);
  const abs = path.join(parent.path.abs, name);
  const rel = parent.path.rel === '.' ? name : `${parent.path.rel}/${name}`;
  try {
    const st = await fs.lstat(abs);
    if (st.isDirectory()) return fail(`${rel} is a directory; delete_file removes single files only.`);
    await fs.unlink(abs);
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return fail(`${rel} does not exist; nothing was deleted.`, { path: rel, missing: true });
    return fail(`Could not delete ${rel}: ${describeFsError(err, rel)}`);
  }
  return ok(`Deleted ${rel}.`, { details: { path: rel }, file_changes: [{ path: rel, operation: 'delete' }] });
}
