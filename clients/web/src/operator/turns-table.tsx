import type { RunningTurn } from './api';
import { duration, usd } from './format';
import { OutLink, SessionLink } from './links';
import { useCancel } from './use-cancel';
import { useNow } from './use-now';

/** "retrying (attempt 2)" for a turn retrying a model step; the phase as the job gives it otherwise. */
const phaseOf = (job: RunningTurn) => (job.phase === 'retrying' && job.retry_attempt ? `retrying (attempt ${job.retry_attempt})` : job.phase);

/**
 * The running turns across sessions (`GET /api/turns`): where each runs, what it is doing, for how
 * long (counted here, from its start), what it has used, and Cancel.
 */
export function TurnsTable({ jobs, cancel }: { jobs: RunningTurn[] | undefined; cancel: (job: RunningTurn) => Promise<string> }) {
  const now = useNow(1000, (jobs?.length ?? 0) > 0);
  if (!jobs) return <p class="hint">Loading running turns…</p>;
  if (jobs.length === 0) return <p class="hint">No turn is running.</p>;
  return (
    <table class="jobs">
      <caption class="visually-hidden">Running turns</caption>
      <thead>
        <tr>
          <th scope="col">Session</th>
          <th scope="col">Turn</th>
          <th scope="col">Phase</th>
          <th scope="col">Model</th>
          <th scope="col">Elapsed</th>
          <th scope="col">Tokens in / out</th>
          <th scope="col">Cost</th>
          <th scope="col">
            <span class="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {jobs.map((job) => (
          <TurnRow key={job.job_id} job={job} now={now} cancel={cancel} />
        ))}
      </tbody>
    </table>
  );
}

function TurnRow({ job, now, cancel }: { job: RunningTurn; now: number; cancel: (job: RunningTurn) => Promise<string> }) {
  const { cancelling, note, onCancel } = useCancel(() => cancel(job));
  return (
    <tr class={job.phase === 'retrying' ? 'retrying' : undefined}>
      <td>
        <SessionLink id={job.session_id} />
      </td>
      <td>{job.turn_id}</td>
      <td class="phase-cell">{phaseOf(job)}</td>
      <td class="mono">{job.model ?? '—'}</td>
      <td class="num">{duration(now - job.started_at)}</td>
      <td class="num">{job.tokens ? `${job.tokens.input} / ${job.tokens.output}` : '—'}</td>
      <td class="num">{usd(job.cost_usd)}</td>
      <td class="actions">
        <button type="button" class="danger" onClick={onCancel} disabled={cancelling}>
          Cancel
        </button>
        {job.workflow_url && (
          <OutLink href={job.workflow_url}>
            Temporal
          </OutLink>
        )}
        {note && (
          <span class="note" role="status">
            {note}
          </span>
        )}
      </td>
    </tr>
  );
}

/** The turns retrying a failed model step now (their phase is `retrying`). */
export function RetriesInProgress({ jobs }: { jobs: RunningTurn[] | undefined }) {
  const retrying = (jobs ?? []).filter((j) => j.phase === 'retrying');
  if (retrying.length === 0) return <p class="hint">No turn is retrying a model step.</p>;
  return (
    <ul class="retries">
      {retrying.map((j) => (
        <li key={j.job_id}>
          <SessionLink id={j.session_id} /> {j.turn_id}: {phaseOf(j)}
          {j.model ? `, ${j.model}` : ''}
        </li>
      ))}
    </ul>
  );
}
