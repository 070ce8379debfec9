import type { OperatorOverview } from './api';
import { DataTable, type Column } from './data-table';
import { clock } from './format';
import { SessionLink } from './links';

type Failure = OperatorOverview['failures'][number];

const providerOf = (f: Failure) => [f.provider, f.status].filter((x) => x !== null && x !== undefined).join(' ') || '—';

const COLUMNS: Array<Column<Failure>> = [
  { title: 'Time', class: 'num', cell: (f) => <time dateTime={new Date(f.at).toISOString()}>{clock(f.at)}</time> },
  { title: 'Session', cell: (f) => <SessionLink id={f.session_id} /> },
  { title: 'Turn', cell: (f) => f.turn_id ?? '—' },
  { title: 'Code', class: 'mono', cell: (f) => f.code },
  { title: 'Kind', class: 'kind', cell: (f) => f.kind ?? '—' },
  { title: 'Provider', cell: providerOf },
  { title: 'Message', class: 'message', cell: (f) => f.message },
];

/** Turns that ended with an error lately, newest first, with their classified reason (`GET /api/operator`). */
export function RecentFailures({ failures }: { failures: Failure[] | undefined }) {
  if (!failures) return <p class="hint">No data yet.</p>;
  if (failures.length === 0) return <p class="hint">No turn failed lately.</p>;
  return <DataTable name="Recent failures" class="failures" columns={COLUMNS} rows={failures} rowKey={(f) => `${f.at}:${f.job_id ?? f.session_id}`} />;
}
