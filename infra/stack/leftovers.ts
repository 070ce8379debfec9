import { readChildRecords } from './child-records';
import { allPids, environHas, isRunning, lineage, readProc, type ProcInfo } from './proc-table';

/**
 * Every process of a stack, and everything those start, carries `STRAND_STACK_DIR=<data dir>` in
 * its environment. That marker is how leftovers of a runner that died are found safely: a process
 * merely mentioning the data dir (`tail -f …/stack.log`) is not ours and is never touched.
 */
export const STACK_MARKER = 'STRAND_STACK_DIR';

export function stackMarkerEnv(dataDir: string): Record<string, string> {
  return { [STACK_MARKER]: dataDir };
}

/**
 * Live processes belonging to the stack of `dataDir`: those carrying its marker, plus recorded
 * children still running with their recorded start time. The caller and its ancestors are excluded.
 */
export function findStackProcesses(dataDir: string): ProcInfo[] {
  const mine = lineage();
  const marker = `${STACK_MARKER}=${dataDir}`;
  const found = new Map<number, ProcInfo>();
  for (const pid of allPids()) {
    if (mine.has(pid) || !environHas(pid, marker)) continue;
    const info = readProc(pid);
    if (info && !info.zombie) found.set(pid, info);
  }
  for (const child of readChildRecords(dataDir)?.children ?? []) {
    if (found.has(child.pid) || mine.has(child.pid) || !isRunning(child.pid, child.startTime)) continue;
    const info = readProc(child.pid);
    if (info) found.set(child.pid, info);
  }
  return [...found.values()];
}

function signal(p: ProcInfo, sig: NodeJS.Signals): void {
  // Only the process found (same pid and start time): one that has exited since may have handed its
  // pid, and its group's number, to another process, which must not be signalled.
  if (!isRunning(p.pid, p.startTime)) return;
  // Our children lead their own process groups: signalling the group also reaches what they started.
  for (const target of p.pgid === p.pid ? [-p.pid, p.pid] : [p.pid]) {
    try {
      process.kill(target, sig);
    } catch {
      // Gone already.
    }
  }
}

/**
 * Stops `procs`: SIGTERM, then SIGKILL to whatever still runs after `graceMs`. Resolves with the
 * processes that survived even that (normally none).
 */
export async function stopProcesses(procs: ProcInfo[], graceMs: number): Promise<ProcInfo[]> {
  const alive = () => procs.filter((p) => isRunning(p.pid, p.startTime));
  const waitGone = async (ms: number) => {
    const deadline = Date.now() + ms;
    while (alive().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  };
  for (const p of procs) signal(p, 'SIGTERM');
  await waitGone(graceMs);
  for (const p of alive()) signal(p, 'SIGKILL');
  await waitGone(2_000);
  return alive();
}

/** `123 nats-server -a …` shortened for messages. */
export function describeProc(p: ProcInfo): string {
  const command = p.command.length > 100 ? `${p.command.slice(0, 97)}…` : p.command;
  return `${p.pid} (${command})`;
}
