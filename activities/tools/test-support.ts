import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createToolExecutor, type ToolExecutorOptions } from './index';
import type { ToolContext } from './types';

/**
 * Shared set-up for the tools' tests (not a test file itself): real temporary directories, a real
 * executor, and a look at the process table independent of the code under test.
 */

export interface Sandbox {
  /** The workspace (as given; on some systems its real path differs). */
  ws: string;
  /** A directory beside the workspace, outside it. */
  outside: string;
  spill: string;
  base: string;
  write(rel: string, content: string): string;
  read(rel: string): string;
  cleanup(): void;
}

export function makeSandbox(prefix = 'strand-tools-'): Sandbox {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  const ws = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  const spill = path.join(base, 'spill');
  fs.mkdirSync(ws);
  fs.mkdirSync(outside);
  return {
    base,
    ws,
    outside,
    spill,
    write(rel, content) {
      const p = path.join(ws, rel);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, content);
      return p;
    },
    read: (rel) => fs.readFileSync(path.join(ws, rel), 'utf8'),
    cleanup: () => fs.rmSync(base, { recursive: true, force: true }),
  };
}

export function makeExecutor(sb: Sandbox, opts: Partial<ToolExecutorOptions> = {}) {
  return createToolExecutor({ spillDir: sb.spill, killGraceMs: 300, ...opts });
}

export function ctxFor(sb: Sandbox, extra: Partial<ToolContext> = {}): ToolContext {
  return { workspace: sb.ws, signal: new AbortController().signal, ...extra };
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_DIR: undefined, GIT_WORK_TREE: undefined },
  });
}

/** Processes of group `pgid` that are still running (zombies awaiting their reaper excluded), per `ps`. */
export function liveGroupMembers(pgid: number): Array<{ pid: number; comm: string }> {
  const out = execFileSync('ps', ['-eo', 'pid=,pgid=,stat=,comm='], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length >= 4 && Number(f[1]) === pgid && !f[2]!.startsWith('Z'))
    .map((f) => ({ pid: Number(f[0]), comm: f[3]! }));
}

/** Kills whatever is left of the groups a test started (a failed assertion must not leak sleeps). */
export function killGroups(pgids: Iterable<number>): void {
  for (const g of pgids) {
    try {
      process.kill(-g, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}
