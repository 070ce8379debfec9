import fs from 'node:fs';
import { allPids, readProc } from '../../infra/stack/proc-table';
import type { Stack } from '../../infra/stack/stack';
import type { ServiceName } from '../../infra/stack/stack-specs';

/** Our own services: the RSS bound applies to them (nats-server and Temporal are reported, not judged). */
const OUR_SERVICES: ServiceName[] = ['store', 'worker', 'gateway'];
const SERVICES: ServiceName[] = ['nats', 'temporal', 'store', 'worker', 'gateway'];

/** One process of the stack as the soak samples it. */
export interface TrackedProcess {
  /** The stack's instance name ('worker#2'); a watchdog (node, running a server binary) gets '/watchdog'. */
  label: string;
  pid: number;
  ours: boolean;
  command: string;
}

/** VmRSS of a live process in MB, from /proc/<pid>/status; undefined when it is gone. */
function rssMb(pid: number): number | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
    return kb ? Number(kb[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every process of the stack. Each instance runs in its own process group led by the process the stack
 * started: our services are that process itself; nats-server and Temporal run as the child of a small
 * node watchdog (infra/stack/watchdog.ts), and both are listed.
 */
export function stackProcesses(stack: Stack): TrackedProcess[] {
  const out: TrackedProcess[] = [];
  // A watchdog's child may or may not share its process group: it is found by its parent.
  const table = allPids().map(readProc).filter((p) => p !== undefined && !p.zombie);
  for (const service of SERVICES) {
    for (const name of stack.instances(service)) {
      const leader = stack.process(name).pid;
      if (leader === undefined) throw new Error(`${name} has no process: the stack is not running`);
      const leaderInfo = table.find((p) => p!.pid === leader);
      const binaryChild = table.find((p) => p!.ppid === leader);
      const ours = OUR_SERVICES.includes(service);
      if (ours || !binaryChild) {
        out.push({ label: name, pid: leader, ours, command: leaderInfo?.command ?? '' });
        continue;
      }
      out.push({ label: name, pid: binaryChild.pid, ours, command: binaryChild.command });
      out.push({ label: `${name}/watchdog`, pid: leader, ours, command: leaderInfo?.command ?? '' });
    }
  }
  return out;
}

/** One RSS reading of every tracked process, `at` seconds from the measured run's start. */
export interface RssSample {
  at: number;
  mb: Record<string, number | null>;
}

export function sampleRss(processes: TrackedProcess[], at: number): RssSample {
  return { at, mb: Object.fromEntries(processes.map((p) => [p.label, round1(rssMb(p.pid))])) };
}

const round1 = (x: number | undefined) => (x === undefined ? null : Math.round(x * 10) / 10);
