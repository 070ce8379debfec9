import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { READ_FILE_DEFAULT_LIMIT, type ReadFileParams } from '../../contracts/tools';
import { resolveInWorkspace } from './paths';
import { describeFsError, fail, looksBinary, ok, throwIfAborted, type ToolContext, type ToolResult } from './types';

/** Output bytes returned at most; past this the result stops early and says where to continue. */
export const READ_MAX_BYTES = 100 * 1024;
/** Longer lines are shortened: a minified bundle must not eat the whole budget in one line. */
export const READ_MAX_LINE_CHARS = 2000;
/** Up to this size the whole file is scanned so the result can give the total line count. */
const COUNT_ALL_BELOW_BYTES = 16 * 1024 * 1024;

/**
 * read_file: lines `offset ..< offset+limit`, numbered like `cat -n`. The file is streamed, so a huge
 * log costs only what is shown. `extraRoots` lets the model read spilled shell output kept outside
 * the workspace.
 */
export async function readFile(params: ReadFileParams, ctx: ToolContext, extraRoots: string[] = []): Promise<ToolResult> {
  const resolved = await resolveInWorkspace(ctx.workspace, params.path, extraRoots);
  if (!resolved.ok) return fail(resolved.error);
  const { abs, rel } = resolved.path;
  let size: number;
  try {
    const st = await fs.promises.stat(abs);
    if (st.isDirectory()) return fail(`${rel} is a directory; use list_files to see what it contains.`);
    if (!st.isFile()) return fail(`${rel} is not a regular file.`);
    size = st.size;
  } catch (err) {
    return fail(describeFsError(err, rel));
  }
  if (size === 0) return ok(`(${rel} is empty)`, { details: { path: rel, total_lines: 0 } });

  const offset = params.offset ?? 1;
  const limit = params.limit ?? READ_FILE_DEFAULT_LIMIT;
  const countAll = size <= COUNT_ALL_BELOW_BYTES;
  const out: string[] = [];
  let outBytes = 0;
  let lineNo = 0;
  let lastShown = offset - 1;
  let full = false;
  let stoppedForBytes = false;
  let longLines = 0;
  let crlf = false;

  /** Takes one line (without its `\n`); false once nothing more is needed from the file. */
  const take = (line: string, length: number): boolean => {
    lineNo++;
    if (lineNo < offset) return true;
    if (full) return countAll;
    if (line.endsWith('\r')) {
      crlf = true;
      line = line.slice(0, -1);
    }
    if (length > READ_MAX_LINE_CHARS) {
      longLines++;
      line = `${line.slice(0, READ_MAX_LINE_CHARS)}… [line shortened: ${length} characters]`;
    }
    const formatted = `${String(lineNo).padStart(6)}\t${line}`;
    const bytes = Buffer.byteLength(formatted, 'utf8') + 1;
    if (outBytes + bytes > READ_MAX_BYTES && out.length > 0) {
      stoppedForBytes = full = true;
      return countAll;
    }
    out.push(formatted);
    outBytes += bytes;
    lastShown = lineNo;
    if (lineNo >= offset + limit - 1) full = true;
    return !full || countAll;
  };

  const stream = fs.createReadStream(abs, { highWaterMark: 64 * 1024 });
  const decoder = new StringDecoder('utf8');
  let pending = '';
  // Characters dropped from a line too long to hold (a huge file with no newline).
  let dropped = 0;
  let first = true;
  let complete = true;
  try {
    reading: for await (const chunk of stream as AsyncIterable<Buffer>) {
      throwIfAborted(ctx.signal);
      if (first) {
        first = false;
        if (looksBinary(chunk)) return fail(`${rel} looks like a binary file (${size} bytes); read_file shows text files only.`);
      }
      pending += decoder.write(chunk);
      let start = 0;
      let nl: number;
      while ((nl = pending.indexOf('\n', start)) !== -1) {
        const line = pending.slice(start, nl);
        const length = line.length + dropped;
        dropped = 0;
        start = nl + 1;
        if (!take(line, length)) {
          complete = false;
          break reading;
        }
      }
      pending = pending.slice(start);
      if (pending.length > 4 * READ_MAX_LINE_CHARS) {
        dropped += pending.length - 2 * READ_MAX_LINE_CHARS;
        pending = pending.slice(0, 2 * READ_MAX_LINE_CHARS);
      }
    }
    if (complete) {
      pending += decoder.end();
      // A last line without a trailing newline still counts.
      if (pending !== '') take(pending, pending.length + dropped);
    }
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    return fail(describeFsError(err, rel));
  } finally {
    stream.destroy();
  }

  const total = complete ? lineNo : undefined;
  if (out.length === 0) return fail(`${rel} has ${lineNo} lines; offset ${offset} is past the end.`, { path: rel, total_lines: lineNo });
  const notes: string[] = [];
  const more = total === undefined || lastShown < total;
  if (more) {
    const of = total === undefined ? 'of a longer file' : `of ${total}`;
    const why = stoppedForBytes ? `output limit of ${READ_MAX_BYTES} bytes reached` : 'line limit reached';
    notes.push(`[Truncated: showing lines ${offset}-${lastShown} ${of} (${why}). Use offset=${lastShown + 1} to read more.]`);
  }
  if (longLines > 0) notes.push(`[${longLines} long line(s) shortened to ${READ_MAX_LINE_CHARS} characters.]`);
  const content = [out.join('\n'), ...notes].join('\n');
  return ok(content, { details: { path: rel, start_line: offset, end_line: lastShown, total_lines: total, truncated: more, crlf } });
}
