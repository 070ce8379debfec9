import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { pidExists } from '../../infra/stack/proc-table';

/**
 * Child processes run in their own process group (spawned detached, so the child is a group leader
 * with pgid = pid). Stopping a command then means signalling the whole group: a shell's background
 * jobs and grandchildren go too, not just the shell.
 */

export interface GroupRun {
  child: ChildProcess;
  pgid: number;
  /** Resolves once the leader has exited and its stdout/stderr are closed (or given up on). */
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM to the group, SIGKILL after the grace if anything is left; resolves when that is done. */
  stop(): Promise<void>;
}

export interface SpawnGroupOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  killGraceMs: number;
  onStdout?: (chunk: Buffer) => void;
  onStderr?: (chunk: Buffer) => void;
  /**
   * After the leader exits, how long to wait for its pipes to close. A background job still holding
   * them (`server &`) would otherwise keep the call open forever; past this the group is stopped.
   */
  drainMs?: number;
}

/**
 * Sends `sig` to every process of group `pgid`; false when that is impossible: the group is gone
 * (ESRCH) or, after it vanished, its number now belongs to someone else's processes (EPERM).
 */
function signalGroup(pgid: number, sig: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, sig);
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function spawnGroup(file: string, args: string[], opts: SpawnGroupOptions): GroupRun {
  const child = spawn(file, args, { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  // A failed spawn (ENOENT) has no pid; report it like a process that could not run.
  const pgid = child.pid ?? -1;
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let stopping: Promise<void> | undefined;
  let closed = false;

  child.stdout?.on('data', (c: Buffer) => opts.onStdout?.(c));
  child.stderr?.on('data', (c: Buffer) => opts.onStderr?.(c));

  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('error', () => {
      exited ??= { code: null, signal: null };
      resolve(exited);
    });
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      if (closed) return;
      // Pipes still open after the leader exited means a background job holds them: stop the group.
      const timer = setTimeout(() => {
        void stop().then(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
          resolve(exited!);
        });
      }, opts.drainMs ?? 500);
      child.once('close', () => clearTimeout(timer));
    });
    child.once('close', () => {
      closed = true;
      if (exited) resolve(exited);
    });
  });

  async function stopOnce(): Promise<void> {
    if (pgid < 0 || !stillOurs()) return;
    if (!signalGroup(pgid, 'SIGTERM')) return;
    const deadline = Date.now() + opts.killGraceMs;
    // Wait for the group to go (polling: members other than the leader send us no events).
    while (Date.now() < deadline) {
      await sleep(25);
      if (!stillOurs() || (closed && !groupHasLiveMembers(pgid))) return;
    }
    if (!stillOurs()) return;
    signalGroup(pgid, 'SIGKILL');
    // SIGKILL cannot be refused, but the kernel takes a moment to tear processes down.
    for (let i = 0; i < 40 && stillOurs() && groupHasLiveMembers(pgid); i++) await sleep(25);
  }
  /**
   * Whether group `pgid` is still the one this run started. While it is, no new process can be given
   * the number (the system keeps a pid while any process has it as its group id); so once our leader
   * has exited (and was reaped), a live process with that pid means our group is gone and its number
   * went to a new process — perhaps the leader of another command's group, which a stop must not
   * signal. (pid numbers wrap quickly on a busy machine: 32768 by default.)
   */
  function stillOurs(): boolean {
    return exited === undefined || !pidExists(pgid);
  }
  function stop(): Promise<void> {
    stopping ??= stopOnce();
    return stopping;
  }

  return { child, pgid, done, stop };
}

/**
 * Whether any non-zombie process is in group `pgid`. kill(-pgid, 0) also succeeds for zombies
 * waiting to be reaped, so /proc is read when it exists; elsewhere the kill probe is the answer.
 */
function groupHasLiveMembers(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  try {
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let stat: string;
      try {
        stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      } catch {
        continue;
      }
      // Fields after the parenthesised command name: state, ppid, pgrp, ...
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') return true;
    }
    return false;
  } catch {
    return true;
  }
}
