/**
 * How a tool call reads in a terminal: a one-line title, and for edits the change as diff lines.
 * Names and parameters are the binding tool set of docs/http.md ("Project directories and tools").
 */

export interface DiffLine {
  sign: '+' | '-';
  text: string;
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const oneLine = (s: string, max: number) => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** `edit_file README.md`, `shell_exec $ npm test`: the tool and what it works on. */
export function toolTitle(tool: string, params: unknown): string {
  const p = (params ?? {}) as Record<string, unknown>;
  const searched = tool === 'search_files' ? str(p.pattern) : undefined;
  const target = str(p.command) !== undefined ? `$ ${oneLine(str(p.command)!, 100)}` : (searched ?? str(p.path) ?? str(p.pattern) ?? '');
  const extra = tool === 'search_files' && str(p.path) ? ` in ${str(p.path)}` : '';
  return `${tool}${target ? ` ${target}` : ''}${extra}`;
}

const lines = (s: string) => (s === '' ? [] : s.replace(/\n$/, '').split('\n'));

/**
 * The change an edit makes, before it is made (so a person approves what they saw): `edit_file`'s
 * old lines then new lines, `write_file`'s content as added lines; at most `max` lines, the rest
 * counted in a last line. Undefined for tools that change no text.
 */
export function toolDiff(tool: string, params: unknown, max = 12): DiffLine[] | undefined {
  const p = (params ?? {}) as Record<string, unknown>;
  let diff: DiffLine[];
  if (tool === 'edit_file' && str(p.old) !== undefined && str(p.new) !== undefined) {
    diff = [...lines(str(p.old)!).map((text) => ({ sign: '-' as const, text })), ...lines(str(p.new)!).map((text) => ({ sign: '+' as const, text }))];
  } else if (tool === 'write_file' && str(p.content) !== undefined) {
    diff = lines(str(p.content)!).map((text) => ({ sign: '+' as const, text }));
  } else return undefined;
  if (diff.length <= max) return diff;
  const rest = diff.length - (max - 1);
  return [...diff.slice(0, max - 1), { sign: diff[max - 1]!.sign, text: `… ${rest} more line${rest === 1 ? '' : 's'}` }];
}

/** The last `n` lines of a tool's output or result, for a row that must stay short. */
export function tail(text: string, n: number): string[] {
  const all = lines(text.replace(/\r\n/g, '\n'));
  return all.length <= n ? all : [`… ${all.length - n} earlier line${all.length - n === 1 ? '' : 's'}`, ...all.slice(-n)];
}
