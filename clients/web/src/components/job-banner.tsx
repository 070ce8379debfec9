import { useEffect, useMemo, useState } from 'preact/hooks';
import { jobStatusText, type JobEscalation, type JobView } from '../../../core/job-calls';
import { toolTitle } from '../../../terminal/tool-display';
import type { ChatSession } from '../chat-session';
import type { JobWatch } from '../job-watch';
import { renderMarkdown } from '../markdown';
import { Diff } from './diff';

type Report = NonNullable<JobView['report']>;

const usd = (n: number) => `$${n.toFixed(4)}`;
const seconds = (ms: number) => (ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`);
const clock = (epochMs: number) => new Date(epochMs).toLocaleTimeString();

/** Whether the address asks for the report shown (`#session=job-x&report=1`: the operator view's Report link). */
const reportAsked = () => new URLSearchParams(location.hash.slice(1)).get('report') === '1';

/**
 * The job above its session's conversation (docs/jobs.md, "On the page"): its status, where it is
 * and what it spent while it runs with Cancel, each call waiting for a person with Allow and Deny,
 * and once it ended its report's summary with the whole report on demand. Everything here is the
 * job's route's (job-watch.ts); the conversation below is the session's stream, as for any session.
 */
export function JobBanner({ job, chat }: { job: JobWatch; chat: ChatSession }) {
  const view = job.view;
  const [cancelling, setCancelling] = useState(false);
  return (
    <section class={`job-banner ${view?.status ?? 'loading'}`} aria-label="Job">
      <header>
        <h2>Job {job.jobId}</h2>
        <span class="job-status" role="status" aria-label="Job status">
          {view ? jobStatusText(view.status) : 'loading…'}
        </span>
        {view?.progress && <span class="job-progress">{progressText(view.progress)}</span>}
        {view && job.running && (
          <button
            type="button"
            class="danger"
            disabled={cancelling}
            onClick={async () => {
              setCancelling(true);
              if (!(await job.cancel())) setCancelling(false);
            }}
            title="Stop the job's turn; it collects what was done and reports cancelled"
          >
            {cancelling ? 'Cancelling…' : 'Cancel job'}
          </button>
        )}
      </header>
      {view && <p class="job-task">{view.title}</p>}
      {(view?.progress?.escalations ?? []).map((e) => (
        <Escalation key={e.tool_call_id} job={job} chat={chat} escalation={e} />
      ))}
      {view?.report && <ReportSummary job={job} report={view.report} />}
      {view && !job.running && !view.report && <p class="hint">The job's workflow ended without a report ({jobStatusText(view.status)}).</p>}
      {job.problem && (
        <p class="problem" role="alert">
          {job.problem}
        </p>
      )}
    </section>
  );
}

function progressText(p: NonNullable<JobView['progress']>): string {
  return [p.phase.replace('_', ' '), p.turn_id ? `turn ${p.turn_id}` : '', `${p.steps} model step${p.steps === 1 ? '' : 's'}`, `${p.tokens} tokens`, usd(p.cost_usd)].filter(Boolean).join(' · ');
}

/**
 * A call the job's policy escalated: what it would run (its arguments, read from the conversation's
 * tool call, since the job's route names only the tool) and Allow / Deny with an optional reason,
 * which the report keeps with the name of who answered.
 */
function Escalation({ job, chat, escalation }: { job: JobWatch; chat: ChatSession; escalation: JobEscalation }) {
  const [reason, setReason] = useState('');
  const [answering, setAnswering] = useState(false);
  const call = chat.view.blocks.find((b) => b.kind === 'tool' && b.callId === escalation.tool_call_id);
  const params = call?.kind === 'tool' ? call.params : undefined;
  const answer = async (decision: 'allow' | 'deny') => {
    setAnswering(true);
    if (!(await job.answer(escalation.tool_call_id, decision, reason.trim() || undefined))) setAnswering(false);
  };
  const reasonId = `job-reason-${escalation.tool_call_id}`;
  return (
    <div class="escalation" role="group" aria-label={`Waiting for a person: ${escalation.tool}`}>
      <p>
        <strong>Waiting for a person:</strong> <span class="tool-title">{toolTitle(escalation.tool, params)}</span>{' '}
        <span class="hint">
          ({escalation.rule_source}; unanswered, the job's timeout rule applies at {clock(escalation.expires_at)})
        </span>
      </p>
      {params !== undefined ? (
        <>
          <Diff tool={escalation.tool} params={params} />
          <pre class="escalation-args" aria-label="Arguments">
            {JSON.stringify(params, null, 2)}
          </pre>
        </>
      ) : (
        <p class="hint">Its arguments show once the conversation has the call.</p>
      )}
      <div class="approval">
        <button type="button" class="primary" disabled={answering} onClick={() => void answer('allow')}>
          Allow
        </button>
        <label class="visually-hidden" for={reasonId}>
          Reason
        </label>
        <input id={reasonId} type="text" class="reason" placeholder="reason (optional)" value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
        <button type="button" class="danger" disabled={answering} onClick={() => void answer('deny')}>
          Deny
        </button>
      </div>
    </div>
  );
}

/** How the job ended, what it delivered and spent; the whole report (the gateway's markdown) on demand. */
function ReportSummary({ job, report }: { job: JobWatch; report: Report }) {
  const [open, setOpen] = useState(reportAsked());
  useEffect(() => {
    if (open) void job.readReport();
  }, [open, job]);
  const html = useMemo(() => (job.reportText === undefined ? undefined : renderMarkdown(job.reportText)), [job.reportText]);
  const d = report.deliverable;
  return (
    <div class="job-report" aria-label="Report summary" role="group">
      <p>
        <strong>{jobStatusText(report.status)}</strong>
        {report.reason ? `: ${report.reason}` : ''}
      </p>
      {report.limits_hit.length > 0 && <p>Limits reached: {report.limits_hit.join(', ')}</p>}
      <p class="job-usage" aria-label="Spent">
        {usd(report.usage.cost_usd)} · {report.usage.tokens} tokens · {report.usage.steps} model steps · {seconds(report.duration_ms)}
      </p>
      {d && (
        <>
          <p>
            Branch <code>{d.branch ?? '—'}</code>
            {d.verified ? ' (verified)' : ` (not verified: ${d.problems.join('; ')})`}
          </p>
          <ul class="files" aria-label="Files changed">
            {d.files.length === 0 && <li class="hint">no file changed</li>}
            {d.files.map((f) => (
              <li key={f.path}>
                <code>{f.path}</code> {f.added === null ? 'binary' : `+${f.added} −${f.removed ?? 0}`}
              </li>
            ))}
          </ul>
          <ul class="commits" aria-label="Commits">
            {d.commits.map((c) => (
              <li key={c.sha}>
                <code>{c.sha.slice(0, 12)}</code> {c.subject}
              </li>
            ))}
          </ul>
        </>
      )}
      <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary>Full report</summary>
        {html === undefined ? <p class="hint">Reading the report…</p> : <div class="markdown" dangerouslySetInnerHTML={{ __html: html }} />}
      </details>
    </div>
  );
}
