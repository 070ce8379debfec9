import { chooseRunAs, ownedDirs, type OwnerOf } from './project-owner';

const dirOwnedBy = (uid: number, gid: number): OwnerOf => () => ({ uid, gid, isDirectory: () => true });
const missing: OwnerOf = () => {
  throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
};

describe('whom the worker and gateway containers run as', () => {
  test('as root: the owner of the projects directory', () => {
    expect(chooseRunAs({ STRAND_PROJECTS_DIR: '/home/ann' }, dirOwnedBy(1001, 1002), 0)).toEqual({ uid: 1001, gid: 1002, why: 'owner of /home/ann (STRAND_PROJECTS_DIR)' });
  });

  test('STRAND_RUN_AS wins over the owner; a bare uid is also the gid; anything else is an error naming it', () => {
    expect(chooseRunAs({ STRAND_PROJECTS_DIR: '/p', STRAND_RUN_AS: '2000:3000' }, dirOwnedBy(1001, 1002), 0)).toEqual({ uid: 2000, gid: 3000, why: 'STRAND_RUN_AS' });
    expect(chooseRunAs({ STRAND_RUN_AS: ' 2000 ' }, missing, 0)).toEqual({ uid: 2000, gid: 2000, why: 'STRAND_RUN_AS' });
    expect(() => chooseRunAs({ STRAND_RUN_AS: 'ann' }, missing, 0)).toThrow('STRAND_RUN_AS=ann: expected uid or uid:gid');
  });

  test('a projects directory that is not mounted, or not a directory, stops the container with its name', () => {
    expect(() => chooseRunAs({ STRAND_PROJECTS_DIR: '/home/ann' }, missing, 0)).toThrow('STRAND_PROJECTS_DIR=/home/ann is not mounted in this container (ENOENT)');
    const file: OwnerOf = () => ({ uid: 1, gid: 1, isDirectory: () => false });
    expect(() => chooseRunAs({ STRAND_PROJECTS_DIR: '/home/ann/x' }, file, 0)).toThrow('is not a directory');
  });

  test('nothing to go by, or not root (a compose `user:` override): run as is; an explicit other user is then an error', () => {
    expect(chooseRunAs({}, missing, 0)).toBeUndefined();
    expect(chooseRunAs({ STRAND_PROJECTS_DIR: '/p' }, dirOwnedBy(1001, 1001), 1000)).toBeUndefined();
    expect(chooseRunAs({ STRAND_RUN_AS: '1000' }, missing, 1000)).toBeUndefined();
    expect(() => chooseRunAs({ STRAND_RUN_AS: '1001' }, missing, 1000)).toThrow('cannot switch users');
  });

  test('STRAND_OWNED_DIRS is a colon-separated list', () => {
    expect(ownedDirs({ STRAND_OWNED_DIRS: '/var/lib/strand: /tmp/x ::' })).toEqual(['/var/lib/strand', '/tmp/x']);
    expect(ownedDirs({})).toEqual([]);
  });
});
