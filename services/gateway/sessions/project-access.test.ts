import { constants } from 'node:fs';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ErrorCode } from '../../../contracts/errors';
import { checkProjectAccess, projectAccessGaps, type ProjectFs } from './project-access';

const errno = (code: string) => Object.assign(new Error(code), { code });

/** A file system where `dirs` are directories, `files` files, and each path lacks the modes listed in `lacking`. */
function fakeFs(opts: { dirs?: string[]; files?: string[]; lacking?: Record<string, number[]>; unreachable?: string[] }): ProjectFs {
  return {
    stat: async (p) => {
      if (opts.unreachable?.includes(p)) throw errno('EACCES');
      if (opts.dirs?.includes(p)) return { isDirectory: () => true };
      if (opts.files?.includes(p)) return { isDirectory: () => false };
      throw errno('ENOENT');
    },
    access: async (p, mode) => {
      if ((opts.lacking?.[p] ?? []).some((m) => (mode & m) !== 0)) throw errno('EACCES');
    },
  };
}

test('what the gateway lacks on a directory: read, enter, both, or a parent it cannot enter', async () => {
  const files = fakeFs({
    dirs: ['/ok', '/noread', '/noenter', '/none'],
    lacking: { '/noread': [constants.R_OK], '/noenter': [constants.X_OK], '/none': [constants.R_OK, constants.X_OK] },
    unreachable: ['/hidden/project'],
  });
  expect(await projectAccessGaps('/ok', files)).toEqual([]);
  expect(await projectAccessGaps('/noread', files)).toEqual(['read']);
  expect(await projectAccessGaps('/noenter', files)).toEqual(['enter']);
  expect(await projectAccessGaps('/none', files)).toEqual(['read', 'enter']);
  expect(await projectAccessGaps('/hidden/project', files)).toEqual(['enter a parent directory']);
});

test('a path that does not exist or is not a directory is not a permission problem (answered as before)', async () => {
  const files = fakeFs({ files: ['/a-file'], lacking: { '/a-file': [constants.X_OK] } });
  expect(await projectAccessGaps('/missing', files)).toEqual([]);
  expect(await projectAccessGaps('/a-file', files)).toEqual([]);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-project-access-'));
  try {
    await expect(checkProjectAccess(path.join(tmp, 'missing'))).resolves.toBeUndefined();
    fs.writeFileSync(path.join(tmp, 'file'), 'x');
    await expect(checkProjectAccess(path.join(tmp, 'file'))).resolves.toBeUndefined();
    await expect(checkProjectAccess(tmp)).resolves.toBeUndefined();
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('PERMISSION_DENIED names the path and what is missing', async () => {
  const files = fakeFs({ dirs: ['/srv/p'], lacking: { '/srv/p': [constants.R_OK, constants.X_OK] }, unreachable: ['/root/p'] });
  const err = await checkProjectAccess('/srv/p', files).catch((e: unknown) => e);
  expect(err).toMatchObject({ code: ErrorCode.PERMISSION_DENIED, details: { project_path: '/srv/p', missing: ['read', 'enter'] } });
  expect((err as Error).message).toMatch(/^project_path \/srv\/p: the gateway's user( \(uid \d+\))? lacks read permission \(to list it\) and execute permission \(to enter it\) on it$/);
  const parent = await checkProjectAccess('/root/p', files).catch((e: unknown) => e);
  expect((parent as Error).message).toMatch(/^project_path \/root\/p: .*may not enter a directory above it/);
});

/** Whether this process is subject to permission bits (root with CAP_DAC_OVERRIDE reads and enters anything). */
function permissionBitsApply(): boolean {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-modes-'));
  const probe = path.join(tmp, 'probe');
  fs.mkdirSync(probe, { mode: 0o000 });
  try {
    fs.accessSync(probe, constants.R_OK);
    return false;
  } catch {
    return true;
  } finally {
    fs.chmodSync(probe, 0o700);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

// The real file system, when this process is subject to permission bits (as root with all its
// capabilities it is not: test/e2e/http-conformance.test.ts then runs a gateway without them).
const subjectToModes = permissionBitsApply();
(subjectToModes ? test : test.skip)('a real chmod 000 directory is refused (skipped when this process bypasses permission bits, as root does)', async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-project-access-'));
  const locked = path.join(tmp, 'locked');
  fs.mkdirSync(locked, { mode: 0o000 });
  try {
    await expect(checkProjectAccess(locked)).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED, details: { missing: ['read', 'enter'] } });
  } finally {
    fs.chmodSync(locked, 0o700);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
