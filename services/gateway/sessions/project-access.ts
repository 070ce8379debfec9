import { constants, type Stats } from 'node:fs';
import fs from 'node:fs/promises';
import { ErrorCode, StrandError } from '../../../contracts/errors';

/** The file system calls the check makes (a test may stand in for them). */
export interface ProjectFs {
  stat(path: string): Promise<Pick<Stats, 'isDirectory'>>;
  access(path: string, mode: number): Promise<void>;
}

const nodeFs: ProjectFs = { stat: (p) => fs.stat(p), access: (p, mode) => fs.access(p, mode) };

const denied = (err: unknown) => {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EACCES' || code === 'EPERM';
};

/** What the gateway's user lacks to use a project directory. */
export type ProjectAccessGap = 'read' | 'enter' | 'enter a parent directory';

/**
 * What keeps the gateway's own user from using `projectPath` as a project: reading (listing) it and
 * entering it (search permission), or reaching it at all (a directory above it cannot be entered).
 * Empty when nothing does — and also when the path does not exist or is not a directory: those are
 * answered as they always were (the session is created; its tools report the missing directory).
 */
export async function projectAccessGaps(projectPath: string, files: ProjectFs = nodeFs): Promise<ProjectAccessGap[]> {
  let isDirectory: boolean;
  try {
    isDirectory = (await files.stat(projectPath)).isDirectory();
  } catch (err) {
    return denied(err) ? ['enter a parent directory'] : [];
  }
  if (!isDirectory) return [];
  const lacks = async (mode: number) => files.access(projectPath, mode).then(() => false, (err: unknown) => denied(err));
  const [read, enter] = await Promise.all([lacks(constants.R_OK), lacks(constants.X_OK)]);
  return [...(read ? (['read'] as const) : []), ...(enter ? (['enter'] as const) : [])];
}

/**
 * Throws PERMISSION_DENIED when the gateway's user may not use the project directory a client gave
 * (`POST /api/sessions {project_path}`, a WebSocket chat's `workspace`, an EDN connection's cwd),
 * naming the path and what is missing.
 */
export async function checkProjectAccess(projectPath: string, files: ProjectFs = nodeFs): Promise<void> {
  const gaps = await projectAccessGaps(projectPath, files);
  if (gaps.length === 0) return;
  const uid = typeof process.getuid === 'function' ? ` (uid ${process.getuid()})` : '';
  const what = gaps.includes('enter a parent directory')
    ? 'may not enter a directory above it (search permission missing), so cannot reach it'
    : `lacks ${gaps.map((g) => (g === 'read' ? 'read permission (to list it)' : 'execute permission (to enter it)')).join(' and ')} on it`;
  throw new StrandError(ErrorCode.PERMISSION_DENIED, `project_path ${projectPath}: the gateway's user${uid} ${what}`, { project_path: projectPath, missing: gaps });
}
