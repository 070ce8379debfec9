/**
 * Renders one line of a child process's output for a terminal: pino JSON lines become
 * `HH:MM:SS LEVEL message key=value…`, anything else passes through as it is.
 */
const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const SKIP = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'name', 'service', 'v']);

function renderValue(v: unknown): string {
  if (typeof v === 'string') return /\s/.test(v) ? JSON.stringify(v) : v;
  if (v && typeof v === 'object' && 'message' in v && typeof (v as { message: unknown }).message === 'string') {
    return JSON.stringify((v as { message: string }).message);
  }
  return JSON.stringify(v);
}

export function renderLogLine(line: string): string {
  if (!line.startsWith('{')) return line;
  let obj: Record<string, unknown>;
  try {
    obj = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  if (typeof obj.level !== 'number' || typeof obj.msg !== 'string') return line;
  const time = typeof obj.time === 'number' ? new Date(obj.time).toISOString().slice(11, 19) : '';
  const extras = Object.entries(obj)
    .filter(([k]) => !SKIP.has(k))
    .map(([k, v]) => `${k}=${renderValue(v)}`)
    .join(' ');
  return [time, (LEVELS[obj.level] ?? String(obj.level)).padEnd(5), obj.msg, extras].filter(Boolean).join(' ');
}

/** Splits a byte stream into lines, calling `onLine` for each complete one. */
export function lineSplitter(onLine: (line: string) => void): { push(chunk: Buffer | string): void; flush(): void } {
  let rest = '';
  return {
    push(chunk) {
      rest += chunk.toString();
      let i: number;
      while ((i = rest.indexOf('\n')) >= 0) {
        onLine(rest.slice(0, i).replace(/\r$/, ''));
        rest = rest.slice(i + 1);
      }
    },
    flush() {
      if (rest) onLine(rest);
      rest = '';
    },
  };
}
