import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { allPids, readProc } from '../../infra/stack/proc-table';

/**
 * CPU time and resident memory of a process and everything it started, read from /proc (Linux). The
 * stack runs Temporal and nats-server under a small watchdog process, so a service's cost is the cost
 * of its whole tree, not of the pid the stack hands out.
 */
const CLOCK_TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

function treeOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const pid of allPids()) {
    const info = readProc(pid);
    if (!info) continue;
    const list = children.get(info.ppid) ?? [];
    list.push(pid);
    children.set(info.ppid, list);
  }
  const tree: number[] = [];
  const todo = [root];
  while (todo.length > 0) {
    const pid = todo.pop()!;
    tree.push(pid);
    todo.push(...(children.get(pid) ?? []));
  }
  return tree;
}

function cpuTicks(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command's closing parenthesis start at field 3; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

function rssKib(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** User + system CPU milliseconds spent so far by `root` and its descendants. */
export function treeCpuMs(root: number): number {
  return (treeOf(root).reduce((n, pid) => n + cpuTicks(pid), 0) * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** Resident memory (KiB) of `root` and its descendants. */
export function treeRssKib(root: number): number {
  return treeOf(root).reduce((n, pid) => n + rssKib(pid), 0);
}

/** The value of `--flag <value>` on the command line of any process in the tree (the dev server's metrics port). */
export function treeArg(root: number, flag: string): string | undefined {
  for (const pid of treeOf(root)) {
    const args = readProc(pid)?.command.split(' ') ?? [];
    const i = args.indexOf(flag);
    if (i >= 0 && args[i + 1]) return args[i + 1];
  }
  return undefined;
}
