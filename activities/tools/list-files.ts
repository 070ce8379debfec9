import fs from 'node:fs/promises';
import { LIST_FILES_MAX_ENTRIES, type ListFilesParams } from '../../contracts/tools';
import { compileListGlob } from './glob';
import { listWorkspaceFiles } from './file-list';
import { resolveInWorkspace } from './paths';
import { describeFsError, fail, ok, type ToolContext, type ToolResult } from './types';

/** Files scanned at most before matching; enough for large repositories, bounded for runaway trees. */
const LIST_SCAN_MAX_FILES = 200_000;

/** list_files: workspace-relative paths under `path`, filtered by `pattern`, ignoring what .gitignore ignores. */
export async function listFiles(params: ListFilesParams, ctx: ToolContext, killGraceMs: number): Promise<ToolResult> {
  const resolved = await resolveInWorkspace(ctx.workspace, params.path);
  if (!resolved.ok) return fail(resolved.error);
  const { abs, rel, root } = resolved.path;
  try {
    const st = await fs.stat(abs);
    // A file named directly lists as itself, so `list_files {path: 'a.ts'}` answers "does it exist".
    if (!st.isDirectory()) return ok(rel, { details: { path: rel, count: 1, truncated: false } });
  } catch (err) {
    return fail(describeFsError(err, rel));
  }
  const listing = await listWorkspaceFiles(root, abs, { signal: ctx.signal, maxFiles: LIST_SCAN_MAX_FILES, killGraceMs });
  let files = listing.files;
  if (params.pattern !== undefined && params.pattern.trim() !== '') {
    const match = compileListGlob(params.pattern);
    // The pattern is relative to the listed directory, the paths shown are relative to the workspace.
    const prefix = rel === '.' ? '' : `${rel}/`;
    files = files.filter((f) => match(f.slice(prefix.length)));
  }
  const where = `${rel === '.' ? 'the workspace' : rel}${params.pattern ? ` matching ${params.pattern}` : ''}`;
  if (files.length === 0) {
    return ok(`No files in ${where} (files ignored by .gitignore are not listed).`, { details: { path: rel, count: 0, truncated: false, source: listing.source } });
  }
  const shown = files.slice(0, LIST_FILES_MAX_ENTRIES);
  const notes: string[] = [];
  if (files.length > shown.length || listing.truncated) {
    const total = listing.truncated ? `more than ${files.length}` : String(files.length);
    notes.push(`[Truncated: showing ${shown.length} of ${total} files. Narrow the listing with path or pattern.]`);
  }
  return ok([shown.join('\n'), ...notes].join('\n'), {
    details: { path: rel, count: shown.length, total: listing.truncated ? undefined : files.length, truncated: notes.length > 0, source: listing.source },
  });
}
