import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { createJobWorkspaceActivities } from '../../activities/job-workspace';
import { gitOk } from '../../activities/job-workspace/git';

/**
 * The job workspace activities with real git in temporary repositories: a worktree per job on its own
 * branch (or a copy of a plain folder), retried calls that find what the first made, the deliverable
 * collected and verified against the repository, and two jobs on one repository apart.
 */
let tmp: string;
let repo: string;
let jobsDir: string;
let acts: ReturnType<typeof createJobWorkspaceActivities>;

beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'job-ws-'));
  repo = path.join(tmp, 'repo');
  jobsDir = path.join(tmp, 'jobs');
  await fs.mkdir(repo);
  await gitOk(repo, ['init', '--quiet', '--initial-branch', 'main']);
  await fs.writeFile(path.join(repo, 'README.md'), 'one\ntwo\nthree\n');
  await gitOk(repo, ['add', '-A']);
  await gitOk(repo, ['commit', '--quiet', '-m', 'first']);
  acts = createJobWorkspaceActivities({ jobsDir });
});

afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

const read = (p: string) => fs.readFile(p, 'utf8');
const exists = (p: string) =>
  fs.stat(p).then(
    () => true,
    () => false,
  );

test('a worktree on strand/job-<id> from HEAD; the deliverable is committed, counted, written as a patch and verified', async () => {
  const ws = await acts.prepareJobWorkspace({ job_id: 'j1', project_path: repo, kind: 'auto' });
  const head = (await gitOk(repo, ['rev-parse', 'HEAD'])).trim();
  expect(ws).toEqual({ kind: 'git_worktree', path: path.join(jobsDir, 'j1', 'workspace'), branch: 'strand/job-j1', base_commit: head, repository: await fs.realpath(repo) });
  await fs.writeFile(path.join(ws.path, 'README.md'), 'one\n2\nthree\nfour\n');
  await fs.writeFile(path.join(ws.path, 'new.txt'), 'a\nb\n');
  const d = await acts.collectJobDeliverable({ job_id: 'j1', workspace: ws, patch_file: true });
  expect(d.branch).toBe('strand/job-j1');
  expect(d.commits).toEqual([{ sha: expect.stringMatching(/^[0-9a-f]{40}$/), subject: 'strand job j1: work the agent left uncommitted' }]);
  expect(d.files).toEqual([
    { path: 'README.md', added: 2, removed: 1 },
    { path: 'new.txt', added: 2, removed: 0 },
  ]);
  expect(d.patch_path).toBe(path.join(jobsDir, 'j1', 'job.patch'));
  expect(await read(d.patch_path!)).toContain('+four');
  expect(await acts.verifyJobDeliverable({ workspace: ws, deliverable: d })).toEqual({ ...d, verified: true, problems: [] });
  // The project's own checkout is untouched: still on main, clean, without the new file.
  expect((await gitOk(repo, ['status', '--porcelain'])).trim()).toBe('');
  expect((await gitOk(repo, ['rev-parse', '--abbrev-ref', 'HEAD'])).trim()).toBe('main');
  expect(await exists(path.join(repo, 'new.txt'))).toBe(false);
  // Collected again (a retried activity): nothing new to commit, the same report.
  expect(await acts.collectJobDeliverable({ job_id: 'j1', workspace: ws, patch_file: true })).toEqual(d);
});

test('commits the agent made itself are listed with the one for what it left; the base may be another ref', async () => {
  const first = (await gitOk(repo, ['rev-parse', 'HEAD'])).trim();
  await fs.writeFile(path.join(repo, 'later.txt'), 'later\n');
  await gitOk(repo, ['add', '-A']);
  await gitOk(repo, ['commit', '--quiet', '-m', 'second']);
  const ws = await acts.prepareJobWorkspace({ job_id: 'j2', project_path: repo, ref: first, kind: 'git_worktree' });
  expect(ws.base_commit).toBe(first);
  expect(await exists(path.join(ws.path, 'later.txt'))).toBe(false);
  await fs.writeFile(path.join(ws.path, 'a.txt'), 'a\n');
  await gitOk(ws.path, ['add', 'a.txt']);
  await gitOk(ws.path, ['commit', '--quiet', '-m', 'the agent: a']);
  await fs.writeFile(path.join(ws.path, 'b.txt'), 'b\n');
  const d = await acts.collectJobDeliverable({ job_id: 'j2', workspace: ws, patch_file: false });
  expect(d.commits.map((c) => c.subject)).toEqual(['the agent: a', 'strand job j2: work the agent left uncommitted']);
  expect(d.files.map((f) => f.path)).toEqual(['a.txt', 'b.txt']);
  expect(d.patch_path).toBeNull();
  expect((await acts.verifyJobDeliverable({ workspace: ws, deliverable: d })).verified).toBe(true);
});

test('a retried prepare finds the worktree it made, also when the first stopped before its record', async () => {
  const ws = await acts.prepareJobWorkspace({ job_id: 'j3', project_path: repo, kind: 'auto' });
  await fs.writeFile(path.join(ws.path, 'kept.txt'), 'kept\n');
  expect(await acts.prepareJobWorkspace({ job_id: 'j3', project_path: repo, kind: 'auto' })).toEqual(ws);
  expect(await read(path.join(ws.path, 'kept.txt'))).toBe('kept\n');
  // Cut short after `git worktree add`, before the record: the next attempt adds it again on the same branch.
  await fs.rm(path.join(jobsDir, 'j3', 'workspace.json'));
  expect(await acts.prepareJobWorkspace({ job_id: 'j3', project_path: repo, kind: 'auto' })).toEqual(ws);
  expect((await gitOk(ws.path, ['rev-parse', '--abbrev-ref', 'HEAD'])).trim()).toBe('strand/job-j3');
});

test('refusals are not retried: a bad ref, a folder that is no repository for git_worktree, a branch already moved', async () => {
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => 'accepted',
      (e: unknown) => (e instanceof ApplicationFailure && e.nonRetryable ? e.message : `retryable: ${String(e)}`),
    );
  expect(await refusal(acts.prepareJobWorkspace({ job_id: 'r1', project_path: repo, ref: 'no-such-ref', kind: 'auto' }))).toMatch(/no-such-ref names no commit/);
  const plain = path.join(tmp, 'plain');
  await fs.mkdir(plain);
  expect(await refusal(acts.prepareJobWorkspace({ job_id: 'r2', project_path: plain, kind: 'git_worktree' }))).toMatch(/is no git repository/);
  expect(await refusal(acts.prepareJobWorkspace({ job_id: 'r3', project_path: path.join(tmp, 'missing'), kind: 'auto' }))).toMatch(/is no folder/);
  await gitOk(repo, ['branch', 'strand/job-r4']);
  await fs.writeFile(path.join(repo, 'x.txt'), 'x\n');
  await gitOk(repo, ['add', '-A']);
  await gitOk(repo, ['commit', '--quiet', '-m', 'moves HEAD past the old branch']);
  expect(await refusal(acts.prepareJobWorkspace({ job_id: 'r4', project_path: repo, kind: 'auto' }))).toMatch(/strand\/job-r4 exists already/);
});

test("two jobs on one repository never touch each other's files", async () => {
  const [a, b] = await Promise.all([
    acts.prepareJobWorkspace({ job_id: 'ja', project_path: repo, kind: 'auto' }),
    acts.prepareJobWorkspace({ job_id: 'jb', project_path: repo, kind: 'auto' }),
  ]);
  expect(a.path).not.toBe(b.path);
  await Promise.all([fs.writeFile(path.join(a.path, 'README.md'), 'by a\n'), fs.writeFile(path.join(b.path, 'README.md'), 'by b\n')]);
  await fs.writeFile(path.join(a.path, 'only-a.txt'), 'a\n');
  await fs.writeFile(path.join(b.path, 'only-b.txt'), 'b\n');
  const [da, db] = await Promise.all([acts.collectJobDeliverable({ job_id: 'ja', workspace: a, patch_file: true }), acts.collectJobDeliverable({ job_id: 'jb', workspace: b, patch_file: true })]);
  expect(da.files.map((f) => f.path)).toEqual(['README.md', 'only-a.txt']);
  expect(db.files.map((f) => f.path)).toEqual(['README.md', 'only-b.txt']);
  expect(await gitOk(repo, ['show', 'strand/job-ja:README.md'])).toBe('by a\n');
  expect(await gitOk(repo, ['show', 'strand/job-jb:README.md'])).toBe('by b\n');
  expect(await exists(path.join(a.path, 'only-b.txt'))).toBe(false);
  expect((await acts.verifyJobDeliverable({ workspace: a, deliverable: da })).verified).toBe(true);
  expect((await acts.verifyJobDeliverable({ workspace: b, deliverable: db })).verified).toBe(true);
});

test('a folder that is no repository is copied, made a repository of its own, and collected the same way', async () => {
  const plain = path.join(tmp, 'plain');
  await fs.mkdir(path.join(plain, 'src'), { recursive: true });
  await fs.writeFile(path.join(plain, 'src', 'main.txt'), 'x\n');
  const ws = await acts.prepareJobWorkspace({ job_id: 'jc', project_path: plain, kind: 'auto' });
  expect(ws).toMatchObject({ kind: 'copy', path: path.join(jobsDir, 'jc', 'workspace'), branch: 'strand/job-jc' });
  await fs.writeFile(path.join(ws.path, 'src', 'main.txt'), 'y\n');
  const d = await acts.collectJobDeliverable({ job_id: 'jc', workspace: ws, patch_file: true });
  expect(d.files).toEqual([{ path: 'src/main.txt', added: 1, removed: 1 }]);
  expect((await acts.verifyJobDeliverable({ workspace: ws, deliverable: d })).verified).toBe(true);
  // The original folder is untouched and still no repository.
  expect(await read(path.join(plain, 'src', 'main.txt'))).toBe('x\n');
  expect(await exists(path.join(plain, '.git'))).toBe(false);
});

test('verification fails when the branch no longer holds the named diff, or the patch is gone', async () => {
  const ws = await acts.prepareJobWorkspace({ job_id: 'jv', project_path: repo, kind: 'auto' });
  await fs.writeFile(path.join(ws.path, 'f.txt'), 'f\n');
  const d = await acts.collectJobDeliverable({ job_id: 'jv', workspace: ws, patch_file: true });
  await fs.writeFile(path.join(ws.path, 'g.txt'), 'g\n');
  await gitOk(ws.path, ['add', '-A']);
  await gitOk(ws.path, ['commit', '--quiet', '-m', 'after the report']);
  await fs.rm(d.patch_path!);
  const v = await acts.verifyJobDeliverable({ workspace: ws, deliverable: d });
  expect(v.verified).toBe(false);
  expect(v.problems).toEqual([expect.stringMatching(/holds 2 commits/), expect.stringMatching(/changes f.txt, g.txt, not what is named \(f.txt\)/), expect.stringMatching(/patch file .* is missing/)]);
  const gone = await acts.verifyJobDeliverable({ workspace: ws, deliverable: { ...d, branch: 'strand/job-nope' } });
  expect(gone.problems).toEqual([expect.stringMatching(/branch strand\/job-nope does not exist/)]);
});

test('removing a workspace keeps the branch and the patch; removing again does nothing', async () => {
  const ws = await acts.prepareJobWorkspace({ job_id: 'jr', project_path: repo, kind: 'auto' });
  await fs.writeFile(path.join(ws.path, 'r.txt'), 'r\n');
  const d = await acts.collectJobDeliverable({ job_id: 'jr', workspace: ws, patch_file: true });
  expect(await acts.removeJobWorkspace({ job_id: 'jr' })).toEqual({ removed: true });
  expect(await exists(ws.path)).toBe(false);
  expect(await gitOk(repo, ['worktree', 'list'])).not.toContain('jr');
  expect((await acts.verifyJobDeliverable({ workspace: ws, deliverable: d })).verified).toBe(true);
  expect(await acts.removeJobWorkspace({ job_id: 'jr' })).toEqual({ removed: false });
});
