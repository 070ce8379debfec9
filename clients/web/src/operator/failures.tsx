import type { OperatorOverview } from './api';
import { clock } from './format';
import { SessionLink } from './links';

type Failure = OperatorOverview['failures'][number];

const providerOf = (f: Failure) => [f.provider, f.status].filter((x) => x !== null && x !== undefined).join(' ') || '—';

/** Turns that ended with an error lately, newest first, with their classified reason (`GET /api/operator`). */
export function RecentFailures({ failures }: { failures: Failure[] | undefined }) {
  if (!failures) return <p class="hint">No data yet.</p>;
  if (failures.length === 0) return <p class="hint">No turn failed lately.</p>;
  return (
    <table class="failures">
      <caption class="visually-hidden">Recent failures</caption>
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Session</th>
          <th scope="col">Turn</th>
          <th scope="col">Code</th>
          <th scope="col">Kind</th>
          <th scope="col">Provider</th>
          <th scope="col">Message</th>
        </tr>
      </thead>
      <tbody>
        {failures.map((f) => (
          <tr key={`${f.at}:${f.job_id ?? f.session_id}`}>
            <td class="num">
              <time dateTime={new Date(f.at).toISOString()}>{clock(f.at)}</time>
            </td>
            <td>
              <SessionLink id={f.session_id} />
            </td>
            <td>{f.turn_id ?? '—'}</td>
            <td class="mono">{f.code}</td>
            <td class="kind">{f.kind ?? '—'}</td>
            <td>{providerOf(f)}</td>
            <td class="message">{f.message}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
