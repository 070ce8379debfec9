import { jobDurationMs, jobRunning, jobStatusText } from '../../../core/job-calls';
import type { ListedJob } from './api';
import { DataTable, type Column } from './data-table';
import { duration, usd, when } from './format';
import { ReportLink, SessionLink } from './links';
import { useCancel } from './use-cancel';
import { useNow } from './use-now';

/** The calls waiting for a person, as one cell: `shell_exec (call_1a2b)`. */
const waitingOf = (job: ListedJob) => {
  const waiting = job.progress?.escalations ?? [];
  return waiting.length === 0 ? '—' : waiting.map((e) => `${e.tool} (${e.tool_call_id})`).join(', ');
};

function columns(now: number, cancel: (job: ListedJob) => Promise<string>): Array<Column<ListedJob>> {
  return [
    { title: 'Job', class: 'mono', cell: (j) => <span title={j.title}>{j.job_id}</span> },
    { title: 'Status', class: 'status-cell', cell: (j) => jobStatusText(j.status) },
    { title: 'Project', class: 'mono', cell: (j) => <bdi>{j.project_path}</bdi> },
    { title: 'Model', class: 'mono', cell: (j) => j.model },
    { title: 'Started', class: 'num', cell: (j) => <time dateTime={new Date(j.started_at).toISOString()}>{when(j.started_at, now)}</time> },
    { title: 'Duration', class: 'num', cell: (j) => duration(jobDurationMs(j, now)) },
    { title: 'Cost', class: 'num', cell: (j) => (j.progress ? usd(j.progress.cost_usd) : '—') },
    { title: 'Tokens', class: 'num', cell: (j) => (j.progress ? String(j.progress.tokens) : '—') },
    { title: 'Waiting for a person', cell: waitingOf },
    { title: 'Actions', hiddenTitle: true, class: 'actions', cell: (j) => <JobActions job={j} cancel={cancel} /> },
  ];
}

/**
 * The caller's unattended jobs (`GET /api/jobs`, docs/jobs.md), running ones first: status, where and
 * with which model, when and for how long, what a running one has spent and which of its calls wait for
 * a person; Cancel for a running one, its report and its session on the chat page.
 */
export function JobsTable({ jobs, cancel }: { jobs: ListedJob[] | undefined; cancel: (job: ListedJob) => Promise<string> }) {
  const now = useNow(1000, (jobs ?? []).some((j) => jobRunning(j.status)));
  if (!jobs) return <p class="hint">Loading jobs…</p>;
  if (jobs.length === 0) return <p class="hint">No jobs yet: start one with POST /api/jobs or strand job run.</p>;
  return <DataTable name="Jobs" class="unattended" columns={columns(now, cancel)} rows={jobs} rowKey={(j) => j.job_id} rowClass={(j) => (jobRunning(j.status) ? 'running' : undefined)} />;
}

function JobActions({ job, cancel }: { job: ListedJob; cancel: (job: ListedJob) => Promise<string> }) {
  const { cancelling, note, onCancel } = useCancel(() => cancel(job));
  return (
    <>
      {jobRunning(job.status) && (
        <button type="button" class="danger" onClick={onCancel} disabled={cancelling} aria-label={`Cancel job ${job.job_id}`}>
          Cancel
        </button>
      )}
      <ReportLink sessionId={job.session_id} jobId={job.job_id} />
      <SessionLink id={job.session_id} />
      {note && (
        <span class="note" role="status">
          {note}
        </span>
      )}
    </>
  );
}
