import fs from 'node:fs';
import path from 'node:path';

/**
 * `<data dir>/stack.children`: which processes a stack runner has started, kept current on every
 * start and exit. If the runner dies without cleaning up, the next `strand up`, `strand down` or
 * `strand status` knows which pids were ours; the start time guards against a pid reused since.
 */
export interface ChildRecord {
  name: string;
  pid: number;
  startTime: number;
}

export interface ChildRecords {
  /** The pid of the process that started them (the stack runner, or a test). */
  owner: number;
  children: ChildRecord[];
}

export function childRecordsPath(dataDir: string): string {
  return path.join(dataDir, 'stack.children');
}

export function writeChildRecords(dataDir: string, children: ChildRecord[]): void {
  const file = childRecordsPath(dataDir);
  const body: ChildRecords = { owner: process.pid, children };
  try {
    // Written whole and renamed, so a reader never sees half a file.
    fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(body)}\n`);
    fs.renameSync(`${file}.tmp`, file);
  } catch {
    // The data dir is gone (a test removed it): nothing left to record.
  }
}

export function readChildRecords(dataDir: string): ChildRecords | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(childRecordsPath(dataDir), 'utf8')) as ChildRecords;
    return Array.isArray(parsed.children) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export function removeChildRecords(dataDir: string): void {
  fs.rmSync(childRecordsPath(dataDir), { force: true });
}
