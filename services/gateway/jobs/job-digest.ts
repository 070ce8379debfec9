import type { JobFacts, JobView } from '../../../contracts/job-http';
import type { JobService } from './job-service';

/**
 * What the terminal-like front doors (EDN's `list_jobs` and `/jobs`, ACP's `/jobs` and `/job`) show of
 * jobs, read through JobService and so authorized exactly as `GET /api/jobs` is (another principal's
 * job is never listed and answers JOB_NOT_FOUND). A list from visibility does not know which running
 * job waits for a person, so each running job's progress is read too (its `jobProgress` query).
 */
export interface JobDigest extends JobFacts {
  /** Calls waiting for a person's answer; null when the job's worker did not answer in time, 0 once it ended. */
  escalations_waiting: number | null;
}

/** The principal's jobs, running first then the most recently ended, each with the calls it waits on. */
export async function listJobDigests(jobs: JobService, principal: string | undefined, filter: { status?: JobFacts['status']; limit: number }): Promise<JobDigest[]> {
  const listed = await jobs.list(principal, filter);
  return Promise.all(
    listed.map(async (job): Promise<JobDigest> => {
      if (job.status !== 'running') return { ...job, escalations_waiting: 0 };
      const view = await jobs.get(job.job_id, principal).catch(() => undefined);
      return { ...job, escalations_waiting: view?.progress ? view.progress.escalations.length : null };
    }),
  );
}

const when = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

/** One line per job, and how to watch one: the text of `/jobs`. */
export function jobListText(jobs: JobDigest[], watchHint: string): string {
  if (jobs.length === 0) return 'No jobs: start one with `strand job run` or POST /api/jobs.';
  const lines = jobs.map((j) => {
    const waiting = j.escalations_waiting ? `, ${j.escalations_waiting} escalation(s) waiting` : '';
    return `- ${j.job_id} ${j.status}${waiting}: ${j.title} (project ${j.project_path}, started ${when(j.started_at)})`;
  });
  return [`Jobs (${jobs.length}):`, ...lines, watchHint].join('\n');
}

/** A job as `/job <id>` shows it: where it is while it runs, its outcome once it ended. */
export function jobViewText(job: JobView): string {
  const out = [`job ${job.job_id}: ${job.status}`, `${job.title}`, `project ${job.project_path}, model ${job.model}`, `session ${job.session_id}`, `started ${when(job.started_at)}${job.closed_at !== null ? `, ended ${when(job.closed_at)}` : ''}`];
  if (job.progress) {
    const p = job.progress;
    out.push(`${p.phase}: ${p.steps} step(s), $${p.cost_usd.toFixed(4)}, ${p.tokens} tokens`);
    for (const e of p.escalations) out.push(`waiting for a person: ${e.tool} (${e.tool_call_id}, until ${when(e.expires_at)})`);
  }
  if (job.report) {
    const r = job.report;
    out.push(`report: ${r.status}${r.reason ? ` (${r.reason})` : ''}`);
    if (r.deliverable?.branch) out.push(`branch ${r.deliverable.branch}: ${r.deliverable.commits.length} commit(s), ${r.deliverable.files.length} file(s)`);
    if (r.summary) out.push(r.summary);
  }
  return out.join('\n');
}
