import net from 'node:net';
import { STACK_MARKER } from '../../infra/stack/leftovers';
import { allPids, environHas, isRunning, readProc, type ProcInfo } from '../../infra/stack/proc-table';

/**
 * Which processes a `npm start` run consists of, and whether they are all gone. Other developers
 * run stacks from the same checkout at the same time, so "every process mentioning services/" would
 * catch theirs: a run is its process tree (taken while it runs) plus every process carrying its
 * data dir, by the stack marker or on its command line.
 */
export function runProcesses(rootPid: number, dataDir: string): ProcInfo[] {
  const table = allPids().map(readProc).filter((p): p is ProcInfo => p !== undefined && !p.zombie);
  const found = new Map<number, ProcInfo>();
  const root = table.find((p) => p.pid === rootPid);
  if (root) found.set(root.pid, root);
  // Parents appear before children only by accident: repeat until nothing new joins.
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of table) {
      if (!found.has(p.pid) && found.has(p.ppid)) {
        found.set(p.pid, p);
        grew = true;
      }
    }
  }
  for (const p of table) {
    if (found.has(p.pid) || p.pid === process.pid) continue;
    if (p.command.includes(dataDir) || environHas(p.pid, `${STACK_MARKER}=${dataDir}`)) found.set(p.pid, p);
  }
  return [...found.values()];
}

/** Of `procs`, those still running (same pid and start time, not a zombie). */
function stillRunning(procs: ProcInfo[]): ProcInfo[] {
  return procs.filter((p) => isRunning(p.pid, p.startTime));
}

/** Waits until none of `procs` runs, or `timeoutMs`; resolves with the survivors. */
export async function waitAllGone(procs: ProcInfo[], timeoutMs: number): Promise<ProcInfo[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = stillRunning(procs);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Last-resort cleanup so a failing test leaves nothing running. */
export function killAll(procs: ProcInfo[]): void {
  for (const p of stillRunning(procs)) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
}

export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ host: '127.0.0.1', port }, () => server.close(() => resolve(true)));
  });
}

/** The ports of `ports` still taken. */
export async function busyPorts(ports: number[]): Promise<number[]> {
  const busy: number[] = [];
  for (const port of ports) if (!(await portFree(port))) busy.push(port);
  return busy;
}

export function listProcs(procs: ProcInfo[]): string {
  return procs.map((p) => `${p.pid} ${p.command.slice(0, 140)}`).join('\n');
}
