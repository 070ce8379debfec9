/**
 * The chat's multi-line input as an immutable value: lines and a cursor. Every edit is a function
 * from one buffer to the next, so the key handling in the Ink component stays a thin mapping and
 * the editing rules are tested here.
 */
export interface InputBuffer {
  readonly lines: readonly string[];
  readonly row: number;
  readonly col: number;
}

export const emptyBuffer: InputBuffer = { lines: [''], row: 0, col: 0 };

export const bufferText = (b: InputBuffer) => b.lines.join('\n');

/** A buffer holding `text` with the cursor at its end. */
export function bufferOf(text: string): InputBuffer {
  const lines = text.split('\n');
  return { lines, row: lines.length - 1, col: lines[lines.length - 1]!.length };
}

const line = (b: InputBuffer) => b.lines[b.row]!;
const withLine = (b: InputBuffer, text: string, col: number): InputBuffer => ({ lines: b.lines.map((l, i) => (i === b.row ? text : l)), row: b.row, col });

/** Typed or pasted text (a paste may hold newlines; tabs become spaces, other control characters go). */
export function insert(b: InputBuffer, text: string): InputBuffer {
  const clean = [...text.replace(/\r\n?/g, '\n').replace(/\t/g, '  ')].filter((c) => c === '\n' || (c >= ' ' && c !== '\u007f')).join('');
  if (clean === '') return b;
  const current = line(b);
  const [first, ...more] = (current.slice(0, b.col) + clean + '\u0000' + current.slice(b.col)).split('\n');
  const pieces = [first!, ...more];
  const last = pieces[pieces.length - 1]!;
  const col = last.indexOf('\u0000');
  pieces[pieces.length - 1] = last.replace('\u0000', '');
  const lines = [...b.lines.slice(0, b.row), ...pieces, ...b.lines.slice(b.row + 1)];
  return { lines, row: b.row + pieces.length - 1, col };
}

export const newline = (b: InputBuffer) => insert(b, '\n');

export function backspace(b: InputBuffer): InputBuffer {
  if (b.col > 0) return withLine(b, line(b).slice(0, b.col - 1) + line(b).slice(b.col), b.col - 1);
  if (b.row === 0) return b;
  const above = b.lines[b.row - 1]!;
  const lines = [...b.lines.slice(0, b.row - 1), above + line(b), ...b.lines.slice(b.row + 1)];
  return { lines, row: b.row - 1, col: above.length };
}

export function deleteForward(b: InputBuffer): InputBuffer {
  if (b.col < line(b).length) return withLine(b, line(b).slice(0, b.col) + line(b).slice(b.col + 1), b.col);
  if (b.row === b.lines.length - 1) return b;
  const lines = [...b.lines.slice(0, b.row), line(b) + b.lines[b.row + 1]!, ...b.lines.slice(b.row + 2)];
  return { lines, row: b.row, col: b.col };
}

/** Ctrl-W: the word before the cursor (and the spaces after it). */
export function deleteWordBack(b: InputBuffer): InputBuffer {
  if (b.col === 0) return backspace(b);
  const before = line(b).slice(0, b.col);
  const kept = before.replace(/\S*\s*$/, '');
  return withLine(b, kept + line(b).slice(b.col), kept.length);
}

/** Ctrl-U: the line up to the cursor. */
export const deleteToLineStart = (b: InputBuffer) => withLine(b, line(b).slice(b.col), 0);

/** Ctrl-K: the line from the cursor. */
export const deleteToLineEnd = (b: InputBuffer) => withLine(b, line(b).slice(0, b.col), b.col);

export function left(b: InputBuffer): InputBuffer {
  if (b.col > 0) return { ...b, col: b.col - 1 };
  if (b.row === 0) return b;
  return { ...b, row: b.row - 1, col: b.lines[b.row - 1]!.length };
}

export function right(b: InputBuffer): InputBuffer {
  if (b.col < line(b).length) return { ...b, col: b.col + 1 };
  if (b.row === b.lines.length - 1) return b;
  return { ...b, row: b.row + 1, col: 0 };
}

/** Up a line; undefined on the first line (the caller goes back in history instead). */
export function up(b: InputBuffer): InputBuffer | undefined {
  if (b.row === 0) return undefined;
  return { ...b, row: b.row - 1, col: Math.min(b.col, b.lines[b.row - 1]!.length) };
}

/** Down a line; undefined on the last line (the caller goes forward in history instead). */
export function down(b: InputBuffer): InputBuffer | undefined {
  if (b.row === b.lines.length - 1) return undefined;
  return { ...b, row: b.row + 1, col: Math.min(b.col, b.lines[b.row + 1]!.length) };
}

export const home = (b: InputBuffer): InputBuffer => ({ ...b, col: 0 });
export const end = (b: InputBuffer): InputBuffer => ({ ...b, col: line(b).length });

/**
 * Prompt history, newest last: Up walks back from the draft being typed, Down forward to it again.
 * The draft is kept, so browsing history never loses what was being written.
 */
export class PromptHistory {
  private entries: string[] = [];
  private at: number | undefined;
  private draft = '';

  constructor(entries: string[] = []) {
    for (const e of entries) this.add(e);
  }

  add(text: string): void {
    if (text.trim() && this.entries[this.entries.length - 1] !== text) this.entries.push(text);
    this.at = undefined;
  }

  /** The entry before the one shown (from `current`, the draft, when not browsing yet). */
  back(current: string): string | undefined {
    if (this.entries.length === 0) return undefined;
    if (this.at === undefined) {
      this.draft = current;
      this.at = this.entries.length;
    }
    if (this.at === 0) return undefined;
    this.at--;
    return this.entries[this.at];
  }

  /** The entry after the one shown, and the draft after the newest. */
  forward(): string | undefined {
    if (this.at === undefined) return undefined;
    this.at++;
    if (this.at >= this.entries.length) {
      this.at = undefined;
      return this.draft;
    }
    return this.entries[this.at];
  }
}
