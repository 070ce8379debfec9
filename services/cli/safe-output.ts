/**
 * Output that never throws. On Ctrl-C npm exits at once; when our stdout was a pipe (`npm start |
 * tee log`, a test reading it) its reader may be gone, and writes fail with EPIPE. An unhandled
 * 'error' on process.stdout would kill the runner halfway through stopping the stack, and stopping
 * the stack matters more than its log: failed writes are dropped.
 */
const broken = new Set<NodeJS.WriteStream>();

/** Installs the error handlers; call once, first thing, in every CLI process. */
export function guardOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', () => broken.add(stream));
  }
}

export function say(line: string, stream: NodeJS.WriteStream = process.stdout): void {
  if (broken.has(stream)) return;
  try {
    stream.write(`${line}\n`);
  } catch {
    broken.add(stream);
  }
}

export function sayError(line: string): void {
  say(line, process.stderr);
}
