import fs from 'node:fs/promises';
import path from 'node:path';
import { SEARCH_FILES_MAX_MATCHES, type SearchFilesParams } from '../../contracts/tools';
import { listWorkspaceFiles } from './file-list';
import { resolveInWorkspace } from './paths';
import { describeFsError, errorMessage, fail, looksBinary, ok, throwIfAborted, type ToolContext, type ToolResult } from './types';

/** Files larger than this are skipped (generated bundles, data dumps); the result says how many. */
const SEARCH_MAX_FILE_BYTES = 2 * 1024 * 1024;
/** Files read at most per search. */
const SEARCH_MAX_FILES = 50_000;
/** A matching line is shown up to this many characters. */
const MAX_LINE_CHARS = 300;

/**
 * Compiles the model's pattern. JavaScript has no inline flags, so a leading `(?i)` (common in other
 * regex dialects) is turned into the `i` flag instead of failing.
 */
export function compileSearchPattern(pattern: string): RegExp | string {
  let source = pattern;
  let flags = '';
  if (source.startsWith('(?i)')) {
    source = source.slice(4);
    flags = 'i';
  }
  try {
    return new RegExp(source, flags);
  } catch (err) {
    return `Invalid regular expression ${JSON.stringify(pattern)}: ${errorMessage(err)}`;
  }
}

/** search_files: `path:line: text` for lines matching `pattern`, ignored, binary and huge files skipped. */
export async function searchFiles(params: SearchFilesParams, ctx: ToolContext, killGraceMs: number): Promise<ToolResult> {
  const re = compileSearchPattern(params.pattern);
  if (typeof re === 'string') return fail(re);
  const resolved = await resolveInWorkspace(ctx.workspace, params.path);
  if (!resolved.ok) return fail(resolved.error);
  const { abs, rel, root } = resolved.path;
  let candidates: string[];
  let listingTruncated = false;
  try {
    const st = await fs.stat(abs);
    if (st.isDirectory()) {
      const listing = await listWorkspaceFiles(root, abs, { signal: ctx.signal, maxFiles: SEARCH_MAX_FILES, killGraceMs });
      candidates = listing.files;
      listingTruncated = listing.truncated;
    } else {
      // A file named directly is searched even when .gitignore ignores it.
      candidates = [rel];
    }
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    return fail(describeFsError(err, rel));
  }

  const matches: string[] = [];
  let searched = 0;
  let skippedBinary = 0;
  let skippedLarge = 0;
  let more = false;
  for (const file of candidates) {
    throwIfAborted(ctx.signal);
    const full = path.join(root, file);
    // lstat, not stat: a symlink is searched through its target's own entry, never followed out of the workspace.
    const st = await fs.lstat(full).catch(() => undefined);
    if (!st?.isFile()) continue;
    if (st.size > SEARCH_MAX_FILE_BYTES) {
      skippedLarge++;
      continue;
    }
    const buf = await fs.readFile(full).catch(() => undefined);
    if (!buf) continue;
    if (looksBinary(buf)) {
      skippedBinary++;
      continue;
    }
    searched++;
    const lines = buf.toString('utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      let line = lines[i]!;
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (!re.test(line)) continue;
      if (matches.length >= SEARCH_FILES_MAX_MATCHES) {
        more = true;
        break;
      }
      const text = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [${line.length} chars]` : line;
      matches.push(`${file}:${i + 1}: ${text}`);
    }
    if (more) break;
  }

  const notes: string[] = [];
  if (more) notes.push(`[Truncated at ${SEARCH_FILES_MAX_MATCHES} matches. Narrow the pattern or the path to see the rest.]`);
  if (listingTruncated) notes.push(`[Only the first ${SEARCH_MAX_FILES} files were searched. Give a path to search a smaller part of the workspace.]`);
  if (skippedLarge > 0) notes.push(`[Skipped ${skippedLarge} file(s) larger than ${SEARCH_MAX_FILE_BYTES} bytes.]`);
  if (skippedBinary > 0) notes.push(`[Skipped ${skippedBinary} binary file(s).]`);
  const details = { pattern: params.pattern, path: rel, matches: matches.length, files_searched: searched, truncated: more || listingTruncated, skipped_binary: skippedBinary, skipped_large: skippedLarge };
  if (matches.length === 0) {
    return ok([`No matches for ${JSON.stringify(params.pattern)} in ${searched} file(s) under ${rel === '.' ? 'the workspace' : rel}.`, ...notes].join('\n'), { details });
  }
  return ok([matches.join('\n'), ...notes].join('\n'), { details });
}
