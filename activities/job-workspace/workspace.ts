import fs from 'node:fs/promises';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { jobBranch } from '../../contracts/job-spec';
import { jobWorkspaceInfoSchema, type JobWorkspaceInfo } from '../../contracts/job-report';
import { git, gitOk } from './git';

/** Where a job keeps its files under the jobs folder (docs/jobs.md, "Where things are"). */
export function jobPaths(jobsDir: string, jobId: string) {
  const root = path.join(jobsDir, jobId);
  return { root, workspace: path.join(root, 'workspace'), record: path.join(root, 'workspace.json'), patch: path.join(root, 'job.patch') };
}

export interface PrepareJobWorkspaceInput {
  job_id: string;
  project_path: string;
  ref?: string;
  kind: 'auto' | 'git_worktree' | 'copy';
}

/** The repository root holding `dir`, or undefined when it is in none. */
async function repositoryOf(dir: string): Promise<string | undefined> {
  const r = await git(dir, ['rev-parse', '--show-toplevel']);
  return r.code === 0 ? r.stdout.trim() : undefined;
}

/** The refusal of a spec that cannot work (retrying would not help): the job reports it as failed. */
function refuse(message: string): ApplicationFailure {
  return ApplicationFailure.create({ message, type: 'JobWorkspaceRefused', nonRetryable: true });
}

async function readRecord(file: string): Promise<JobWorkspaceInfo | undefined> {
  const text = await fs.readFile(file, 'utf8').catch(() => undefined);
  return text === undefined ? undefined : jobWorkspaceInfoSchema.parse(JSON.parse(text));
}

async function writeRecord(file: string, info: JobWorkspaceInfo): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, JSON.stringify(info, null, 2));
  await fs.rename(tmp, file);
}

/**
 * Makes the job's workspace, idempotently: the record written last (`workspace.json`) says it is
 * complete, so a retried call returns it; a call cut short before that (a worktree added, the record
 * not written) cleans what it left and starts again. A git project gets a worktree of its repository
 * on `strand/job-<id>` from `ref` (default HEAD); a folder that is no repository is copied, and the
 * copy is made a repository of its own (one commit of everything) so the deliverable is collected the
 * same way. The project's own checkout is never touched.
 */
export async function prepareJobWorkspace(jobsDir: string, input: PrepareJobWorkspaceInput, hostTaskQueue?: string): Promise<JobWorkspaceInfo> {
  const paths = jobPaths(jobsDir, input.job_id);
  const done = await readRecord(paths.record);
  if (done) return done;
  const stat = await fs.stat(input.project_path).catch(() => undefined);
  if (!stat?.isDirectory()) throw refuse(`the project ${input.project_path} is no folder on this worker`);
  await fs.mkdir(paths.root, { recursive: true });
  const repository = input.kind === 'copy' ? undefined : await repositoryOf(input.project_path);
  if (input.kind === 'git_worktree' && !repository) throw refuse(`the project ${input.project_path} is no git repository (workspace.kind git_worktree)`);
  const made = repository ? await addWorktree(paths.workspace, repository, input) : await copyFolder(paths.workspace, input);
  const info: JobWorkspaceInfo = { ...made, ...(hostTaskQueue ? { task_queue: hostTaskQueue } : {}) };
  await writeRecord(paths.record, info);
  return info;
}

async function addWorktree(dir: string, repository: string, input: PrepareJobWorkspaceInput): Promise<JobWorkspaceInfo> {
  const branch = jobBranch(input.job_id);
  const wanted = input.ref ?? 'HEAD';
  const resolved = await git(repository, ['rev-parse', '--verify', '--quiet', `${wanted}^{commit}`]);
  if (resolved.code !== 0) throw refuse(`the ref ${wanted} names no commit in ${repository}`);
  const base = resolved.stdout.trim();
  // A previous attempt that stopped half-way: drop its folder (and git's note of it) and add it again.
  await fs.rm(dir, { recursive: true, force: true });
  await gitOk(repository, ['worktree', 'prune']);
  const branchExists = (await git(repository, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`])).code === 0;
  if (branchExists) {
    // Made by that attempt from the same base, or by an earlier job of this id: never reset someone's work.
    const at = (await gitOk(repository, ['rev-parse', `refs/heads/${branch}`])).trim();
    if (at !== base) throw refuse(`the branch ${branch} exists already and is not at ${wanted} (${base}): choose another job id`);
    await gitOk(repository, ['worktree', 'add', dir, branch]);
  } else {
    await gitOk(repository, ['worktree', 'add', '-b', branch, dir, base]);
  }
  // The project may be a folder inside its repository: the job works in the same folder of its worktree.
  const inside = path.relative(repository, await fs.realpath(input.project_path));
  return { kind: 'git_worktree', path: path.join(dir, inside), branch, base_commit: base, repository };
}

async function copyFolder(dir: string, input: PrepareJobWorkspaceInput): Promise<JobWorkspaceInfo> {
  const branch = jobBranch(input.job_id);
  const tmp = `${dir}.partial`;
  await fs.rm(tmp, { recursive: true, force: true });
  await fs.rm(dir, { recursive: true, force: true });
  await fs.cp(input.project_path, tmp, { recursive: true, verbatimSymlinks: true });
  // Its own repository (a copy of a folder inside another repository would otherwise join that one).
  await gitOk(tmp, ['init', '--quiet', '--initial-branch', branch]);
  await gitOk(tmp, ['add', '-A']);
  await gitOk(tmp, ['commit', '--quiet', '--allow-empty', '-m', `strand job ${input.job_id}: the copied folder as it was`]);
  const base = (await gitOk(tmp, ['rev-parse', 'HEAD'])).trim();
  await fs.rename(tmp, dir);
  return { kind: 'copy', path: dir, branch, base_commit: base, repository: dir };
}

/**
 * Removes the job's workspace (the retention sweep of a later session calls it): the worktree and its
 * folder go, the branch and the patch stay, they are the deliverable. Idempotent.
 */
export async function removeJobWorkspace(jobsDir: string, input: { job_id: string }): Promise<{ removed: boolean }> {
  const paths = jobPaths(jobsDir, input.job_id);
  const info = await readRecord(paths.record);
  const existed = await fs.stat(paths.workspace).then(
    () => true,
    () => false,
  );
  if (info?.kind === 'git_worktree' && info.repository) {
    await git(info.repository, ['worktree', 'remove', '--force', paths.workspace]);
    await fs.rm(paths.workspace, { recursive: true, force: true });
    await gitOk(info.repository, ['worktree', 'prune']);
  } else {
    await fs.rm(paths.workspace, { recursive: true, force: true });
  }
  await fs.rm(paths.record, { force: true });
  return { removed: existed };
}
