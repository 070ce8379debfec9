import fs from 'node:fs/promises';
import type { EditFileParams } from '../../contracts/tools';
import { resolveInWorkspace } from './paths';
import { writeFileAtomic } from './write-file';
import { describeFsError, fail, looksBinary, ok, type ToolContext, type ToolResult } from './types';

/** What an edit would do to a file's content, decided without touching the file. */
export type EditPlan =
  | { kind: 'apply'; content: string; line: number; crlf: boolean }
  | { kind: 'already_applied'; line?: number; reason: string }
  | { kind: 'error'; message: string; matches: number; whitespace_match_line?: number };

/** Files longer than this get no whitespace-insensitive hint. */
const WHITESPACE_HINT_MAX_CHARS = 4 * 1024 * 1024;
/** Lines listed at most when `old` is ambiguous. */
const MAX_LISTED_LINES = 10;

/**
 * Decides an edit: `old` must occur exactly once (overlapping occurrences count, so `aa` in `aaa` is
 * ambiguous). Exported so a caller re-running a tool after a crash can tell an edit already applied
 * from one that cannot apply:
 * - `old` absent and `new` present exactly once: already applied.
 * - `new` contains `old` (an insertion around existing text): after applying, `old` still occurs, so
 *   only a re-run (`attempt > 1`) treats "`new` present once, covering every occurrence of `old`"
 *   as applied; on a first run that shape is an ordinary edit.
 * - `new` empty (a deletion): `old` absent on a re-run means it was deleted already.
 * A file with CRLF line ends also matches an `old` written with `\n`.
 */
export function planEdit(content: string, oldText: string, newText: string, opts: { attempt?: number } = {}): EditPlan {
  if (oldText === '') return { kind: 'error', message: '`old` is empty; use write_file to create or replace a whole file.', matches: 0 };
  if (oldText === newText) return { kind: 'error', message: '`old` and `new` are identical; there is nothing to change.', matches: 0 };
  const retry = (opts.attempt ?? 1) > 1;
  let crlf = false;
  let oldT = oldText;
  let newT = newText;
  let hits = occurrences(content, oldT);
  if (hits.length === 0 && content.includes('\r\n') && oldT.includes('\n') && !oldT.includes('\r')) {
    const o = oldT.replace(/\n/g, '\r\n');
    const h = occurrences(content, o);
    if (h.length > 0 || content.includes(newT.replace(/\n/g, '\r\n'))) {
      crlf = true;
      oldT = o;
      newT = newT.replace(/\n/g, '\r\n');
      hits = h;
    }
  }

  if (retry && newT !== '' && newT.includes(oldT)) {
    const at = occurrences(content, newT);
    if (at.length === 1) {
      const start = at[0]!;
      const end = start + newT.length;
      if (hits.every((h) => h >= start && h + oldT.length <= end)) {
        return { kind: 'already_applied', line: lineAt(content, start), reason: '`new` is present once and every occurrence of `old` lies inside it' };
      }
    }
  }
  if (hits.length === 1) {
    const i = hits[0]!;
    return { kind: 'apply', content: content.slice(0, i) + newT + content.slice(i + oldT.length), line: lineAt(content, i), crlf };
  }
  if (hits.length > 1) {
    const lines = [...new Set(hits.map((h) => lineAt(content, h)))];
    const shown = lines.slice(0, MAX_LISTED_LINES).join(', ') + (lines.length > MAX_LISTED_LINES ? ', …' : '');
    return {
      kind: 'error',
      matches: hits.length,
      message: `\`old\` occurs ${hits.length} times (starting on lines ${shown}); it must occur exactly once. Include more surrounding lines in \`old\` to pick one.`,
    };
  }
  // Zero matches from here on.
  if (newT !== '') {
    const at = occurrences(content, newT);
    if (at.length === 1) return { kind: 'already_applied', line: lineAt(content, at[0]!), reason: '`old` is absent and `new` is present exactly once' };
    if (at.length > 1 && !newT.includes(oldT)) {
      return { kind: 'error', matches: 0, message: `\`old\` was not found, and \`new\` already occurs ${at.length} times: the edit may have been applied already. Read the file to check.` };
    }
  } else if (retry) {
    return { kind: 'already_applied', reason: '`old` is gone and `new` is empty: the deletion was made by an earlier run' };
  }
  const ws = whitespaceInsensitiveLine(content, oldText);
  const hint =
    ws !== undefined
      ? ` A match ignoring whitespace differences exists at line ${ws}: read the file again and copy the text exactly, including indentation.`
      : ' No match ignoring whitespace either: read the file again, it may have changed.';
  return { kind: 'error', matches: 0, whitespace_match_line: ws, message: `\`old\` was not found (0 matches).${hint}` };
}

/** Start indexes of every occurrence of `needle`, overlapping ones included. */
function occurrences(haystack: string, needle: string): number[] {
  const out: number[] = [];
  if (needle === '') return out;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) out.push(i);
  return out;
}

function lineAt(content: string, index: number): number {
  let n = 1;
  for (let i = content.indexOf('\n'); i !== -1 && i < index; i = content.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * The line where `needle` occurs once every run of whitespace is collapsed to one space (and leading
 * and trailing whitespace dropped): the usual reason an edit misses is indentation or line ends.
 */
export function whitespaceInsensitiveLine(content: string, needle: string): number | undefined {
  const target = needle.replace(/\s+/g, ' ').trim();
  // The per-character map costs memory; past a few MB the hint is not worth it.
  if (target === '' || content.length > WHITESPACE_HINT_MAX_CHARS) return undefined;
  let collapsed = '';
  const lineOf: number[] = [];
  let line = 1;
  let inSpace = false;
  for (const ch of content) {
    if (/\s/.test(ch)) {
      if (!inSpace && collapsed !== '') {
        collapsed += ' ';
        lineOf.push(line);
      }
      inSpace = true;
      if (ch === '\n') line++;
      continue;
    }
    inSpace = false;
    collapsed += ch;
    // One entry per UTF-16 unit so indexes into `collapsed` map straight to lines.
    for (let k = 0; k < ch.length; k++) lineOf.push(line);
  }
  const at = collapsed.indexOf(target);
  return at === -1 ? undefined : lineOf[at];
}

/** edit_file: one exact, unique replacement, written atomically. */
export async function editFile(params: EditFileParams, ctx: ToolContext): Promise<ToolResult> {
  const resolved = await resolveInWorkspace(ctx.workspace, params.path);
  if (!resolved.ok) return fail(resolved.error);
  const { abs, rel } = resolved.path;
  let content: string;
  try {
    const st = await fs.stat(abs);
    if (st.isDirectory()) return fail(`${rel} is a directory.`);
    const buf = await fs.readFile(abs);
    if (looksBinary(buf)) return fail(`${rel} looks like a binary file; edit_file changes text files only.`);
    content = buf.toString('utf8');
  } catch (err) {
    return fail(`${describeFsError(err, rel)} Use write_file to create a new file.`);
  }
  const plan = planEdit(content, params.old, params.new, { attempt: ctx.attempt });
  const change = [{ path: rel, operation: 'edit' as const }];
  if (plan.kind === 'error') return fail(`Edit of ${rel} not applied: ${plan.message}`, { path: rel, matches: plan.matches, whitespace_match_line: plan.whitespace_match_line });
  if (plan.kind === 'already_applied') {
    // Reported as a change: the run that made it may have crashed before announcing file.changed.
    const where = plan.line !== undefined ? ` (line ${plan.line})` : '';
    return ok(`Edit of ${rel} already applied${where}: ${plan.reason}. Nothing changed.`, { details: { path: rel, already_applied: true, line: plan.line }, file_changes: change });
  }
  try {
    await writeFileAtomic(abs, plan.content);
  } catch (err) {
    return fail(`Could not write ${rel}: ${describeFsError(err, rel)}`);
  }
  const oldLines = params.old.split('\n').length;
  const newLines = params.new === '' ? 0 : params.new.split('\n').length;
  return ok(`Edited ${rel} at line ${plan.line}: replaced ${oldLines} line(s) with ${newLines}.`, {
    details: { path: rel, line: plan.line, old_lines: oldLines, new_lines: newLines, crlf: plan.crlf },
    file_changes: change,
  });
}
