import { execFile } from 'node:child_process';

/** What a git command printed and how it ended. */
export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Fixed identity and no user configuration: the job's commits must not depend on (or fail for lack
 * of) the worker's git settings, and no hook or pager of the project runs.
 */
const GIT_ENV = {
  GIT_AUTHOR_NAME: 'strand',
  GIT_AUTHOR_EMAIL: 'strand@localhost',
  GIT_COMMITTER_NAME: 'strand',
  GIT_COMMITTER_EMAIL: 'strand@localhost',
  GIT_TERMINAL_PROMPT: '0',
  GIT_PAGER: 'cat',
  GIT_CONFIG_NOSYSTEM: '1',
};

/** Runs git in `cwd`; never throws for a non-zero exit (the caller decides), only when git cannot start. */
export function git(cwd: string, args: string[], opts: { maxBuffer?: number } = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    execFile('git', ['-c', 'core.hooksPath=/dev/null', '-c', 'commit.gpgsign=false', ...args], { cwd, env: { ...process.env, ...GIT_ENV }, maxBuffer: opts.maxBuffer ?? 256 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err && typeof (err as { code?: unknown }).code !== 'number') return reject(err);
      resolve({ code: err ? Number((err as { code: number }).code) : 0, stdout, stderr });
    });
  });
}

/** Runs git and returns its output; a non-zero exit throws with git's own message. */
export async function gitOk(cwd: string, args: string[], opts: { maxBuffer?: number } = {}): Promise<string> {
  const r = await git(cwd, args, opts);
  if (r.code !== 0) throw new Error(`git ${args.join(' ')} failed (exit ${r.code}): ${r.stderr.trim() || r.stdout.trim()}`);
  return r.stdout;
}
