import fs from 'node:fs';

/** Clock ticks per second of /proc's times (USER_HZ): 100 on Linux everywhere that matters. */
const USER_HZ = 100;

/**
 * CPU time (user + system, every thread) a process has used so far, in ms, from /proc/<pid>/stat;
 * undefined where there is no /proc. Unlike a start's wall time, it barely moves with the machine's
 * load (other processes delay a start but do not add to its CPU), so it compares a start measured on
 * a busy machine with one measured on a quiet one. Resolution: 10 ms.
 */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces, in parentheses): utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
  } catch {
    return undefined;
  }
}
