import { jobStatusText, type JobFacts } from '../../../core/job-calls';

const started = (epochMs: number) => {
  const d = new Date(epochMs);
  return d.toDateString() === new Date().toDateString() ? d.toLocaleTimeString() : d.toLocaleString();
};

/**
 * The caller's unattended jobs in the left column (docs/jobs.md, "On the page"), running ones first:
 * each opens its session `job-<id>` in the chat pane, with the job's banner above it.
 */
export function JobList({ jobs, currentId }: { jobs: JobFacts[] | undefined; currentId: string | undefined }) {
  if (!jobs || jobs.length === 0) return null;
  return (
    <section class="project jobs" aria-labelledby="jobs-heading">
      <h2 id="jobs-heading">Jobs</h2>
      <ul>
        {jobs.map((j) => (
          <li key={j.job_id} class={j.session_id === currentId ? 'current' : ''}>
            <a href={`#session=${encodeURIComponent(j.session_id)}`} aria-current={j.session_id === currentId ? 'page' : undefined} title={`job ${j.job_id}: ${j.title}`}>
              <span class="session-title">{j.title || j.job_id}</span>
              <span class="session-meta">
                <span class={`job-state ${j.status}`}>{jobStatusText(j.status)}</span> · {j.job_id} · {started(j.started_at)}
              </span>
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}
