import { spawnGroup } from './process-group';

export interface CaptureResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
  /** stdout passed maxBytes: the command was stopped and stdout holds only the first maxBytes. */
  overflow: boolean;
  /** The program could not be started (e.g. git not installed). */
  spawnError?: string;
}

/**
 * Runs a program (no shell) in its own process group and collects its output, for the tools' own
 * helper commands (git). Abort stops the group and throws the signal's reason.
 */
export async function runCapture(
  file: string,
  args: string[],
  opts: { cwd: string; signal: AbortSignal; maxBytes: number; killGraceMs: number; env?: NodeJS.ProcessEnv },
): Promise<CaptureResult> {
  if (opts.signal.aborted) throw opts.signal.reason;
  const out: Buffer[] = [];
  let outBytes = 0;
  let overflow = false;
  let err = '';
  let spawnError: string | undefined;
  const run = spawnGroup(file, args, {
    cwd: opts.cwd,
    env: opts.env ?? gitSafeEnv(),
    killGraceMs: opts.killGraceMs,
    onStdout: (c) => {
      if (overflow) return;
      if (outBytes + c.length > opts.maxBytes) {
        out.push(c.subarray(0, opts.maxBytes - outBytes));
        outBytes = opts.maxBytes;
        overflow = true;
        void run.stop();
        return;
      }
      out.push(c);
      outBytes += c.length;
    },
    onStderr: (c) => {
      if (err.length < 16_384) err += c.toString('utf8');
    },
  });
  run.child.once('error', (e) => (spawnError = e.message));
  const onAbort = () => void run.stop();
  opts.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const { code } = await run.done;
    if (opts.signal.aborted) {
      await run.stop();
      throw opts.signal.reason;
    }
    return { code, stdout: Buffer.concat(out), stderr: err, overflow, spawnError };
  } finally {
    opts.signal.removeEventListener('abort', onAbort);
  }
}

/**
 * The worker's environment without variables that would point git at another repository or index
 * than the workspace's, and without a pager or optional locks (status must not take index.lock while
 * the model's own git commands run).
 */
export function gitSafeEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, GIT_PAGER: 'cat', PAGER: 'cat', GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' };
  for (const k of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_COMMON_DIR', 'GIT_CEILING_DIRECTORIES']) delete env[k];
  return env;
}
