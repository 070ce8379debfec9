/**
 * Session ids → file names. Every byte outside [A-Za-z0-9_-] (and `.`, except in the plain middle of
 * a name) becomes `%XX`, so no id can escape the data dir (`..`, `/`, NUL) and the mapping reverses.
 */
export function fileNameOf(sessionId: string): string {
  let out = '';
  for (const byte of Buffer.from(sessionId, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += /[A-Za-z0-9_-]/.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return `${out}.jsonl`;
}

/** The session id a file name encodes, or undefined for files that are not session logs. */
export function sessionIdOf(fileName: string): string | undefined {
  if (!fileName.endsWith('.jsonl')) return undefined;
  const stem = fileName.slice(0, -'.jsonl'.length);
  if (!/^(?:[A-Za-z0-9_-]|%[0-9A-F]{2})*$/.test(stem)) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < stem.length; ) {
    if (stem[i] === '%') {
      bytes.push(parseInt(stem.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      bytes.push(stem.charCodeAt(i));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}
