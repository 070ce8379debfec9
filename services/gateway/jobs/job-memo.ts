import type { JobSpec } from '../../../contracts/job-spec';

/**
 * What a job's start records in its workflow's memo: who owns it, what it is about (for lists, which
 * read visibility only) and its spec's digest (a second start under the same id compares it).
 */
export interface JobMemo {
  owner?: string;
  title: string;
  project_path: string;
  model: string;
  spec_sha256: string;
}

export function jobMemoOf(spec: JobSpec, owner: string | undefined, digest: string): JobMemo {
  return { ...(owner !== undefined ? { owner } : {}), title: spec.task.prompt.split('\n')[0]!.slice(0, 200), project_path: spec.task.project_path, model: spec.task.model, spec_sha256: digest };
}

/** The memo as stored, or undefined for a job started without one (by a Temporal client). */
export function readJobMemo(memo: Record<string, unknown> | undefined): JobMemo | undefined {
  if (!memo || typeof memo.spec_sha256 !== 'string') return undefined;
  const text = (k: string) => (typeof memo[k] === 'string' ? (memo[k] as string) : '');
  return { ...(typeof memo.owner === 'string' ? { owner: memo.owner } : {}), title: text('title'), project_path: text('project_path'), model: text('model'), spec_sha256: memo.spec_sha256 };
}
