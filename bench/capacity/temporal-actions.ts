import type { Client } from '@temporalio/client';
import { sessionWorkflowId, turnWorkflowId } from '../../contracts/workflow-ids';

/**
 * Temporal's cost of a turn, counted two ways.
 *
 * Billable actions from the event histories, by Temporal Cloud's definition of an action
 * (docs.temporal.io/cloud/actions): a workflow started (client start, continue-as-new, child start:
 * counted once, on the parent's StartChildWorkflowExecutionInitiated), an activity started or retried
 * (ActivityTaskStarted, its `attempt` counts the retries), a timer started, a search-attribute upsert,
 * a signal (WorkflowExecutionSignaled), an update accepted (rejected updates never reach the history),
 * a local-activity or side-effect marker. Heartbeats and queries are billable too but never appear in a
 * history: they are read from the server's request counters below.
 *
 * Server work from the dev server's Prometheus endpoint: frontend requests by operation (what clients
 * and workers ask: polls, heartbeats, queries, updates) and persistence requests by operation (what the
 * history service writes and reads; on a cluster these are the database round trips).
 */
export type Counts = Record<string, number>;

const add = (c: Counts, key: string, n = 1) => void (c[key] = (c[key] ?? 0) + n);

/** A workflow's history as the client fetches it. */
type History = Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>;

/**
 * Adds one history's billable actions and events, by type, to `actions` and `events`, and answers the
 * start and end times of its activities. `countsOwnStart`: the workflow was started by a client (its
 * start is an action); a child's start is counted once, on its parent's StartChildWorkflowExecutionInitiated.
 */
export function countHistory(history: History, countsOwnStart: boolean, actions: Counts, events: Counts): { activityStarts: number[]; activityEnds: number[] } {
  const activityStarts: number[] = [];
  const activityEnds: number[] = [];
  for (const e of history.events ?? []) {
    const type = Object.keys(e).find((k) => k.endsWith('EventAttributes') && (e as Record<string, unknown>)[k]);
    if (!type) continue;
    const name = type.replace(/EventAttributes$/, '');
    add(events, name);
    if (name === 'workflowExecutionStarted' && countsOwnStart) add(actions, 'workflow_started');
    if (name === 'workflowExecutionContinuedAsNew') add(actions, 'workflow_continued_as_new');
    if (name === 'startChildWorkflowExecutionInitiated') add(actions, 'child_workflow_started');
    if (name === 'activityTaskStarted') add(actions, 'activity_attempt', Math.max(1, e.activityTaskStartedEventAttributes?.attempt ?? 1));
    if (name === 'timerStarted') add(actions, 'timer_started');
    if (name === 'upsertWorkflowSearchAttributes') add(actions, 'search_attributes_upserted');
    if (name === 'workflowExecutionSignaled') add(actions, 'signal');
    if (name === 'workflowExecutionUpdateAccepted') add(actions, 'update');
    // Patch markers (workflow versioning) are exempt like TemporalChangeVersion; local activities are not.
    if (name === 'markerRecorded') add(events, `marker:${e.markerRecordedEventAttributes?.markerName ?? '?'}`);
    if (name === 'markerRecorded' && e.markerRecordedEventAttributes?.markerName !== 'core_patch') add(actions, 'marker');
    if (name === 'activityTaskCompleted' || name === 'activityTaskFailed' || name === 'activityTaskCanceled') activityEnds.push(millis(e.eventTime));
    if (name === 'activityTaskStarted') activityStarts.push(millis(e.eventTime));
  }
  return { activityStarts, activityEnds };
}

/** Billable actions and all history events, by type, over one session's workflow and its first `turns` turns. */
export async function historyCounts(client: Client, sessionId: string, turns: number): Promise<{ actions: Counts; events: Counts; activitySeconds: number }> {
  const actions: Counts = {};
  const events: Counts = {};
  const activityStarts: number[] = [];
  const activityEnds: number[] = [];
  const ids = [sessionWorkflowId(sessionId), ...Array.from({ length: turns }, (_, i) => turnWorkflowId(sessionId, i + 1))];
  for (const id of ids) {
    const history = await client.workflow.getHandle(id).fetchHistory();
    const times = countHistory(history, id === ids[0], actions, events);
    activityStarts.push(...times.activityStarts);
    activityEnds.push(...times.activityEnds);
  }
  // A started event is written when its activity closes, so starts and ends pair up in order per history.
  const activitySeconds = activityEnds.reduce((n, end, i) => n + Math.max(0, end - (activityStarts[i] ?? end)), 0) / 1000;
  return { actions, events, activitySeconds };
}

const millis = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) => Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;

/** Sums of the server's request counters, keyed `<metric>:<operation>`, from its Prometheus text. */
export async function serverCounters(metricsUrl: string): Promise<Counts> {
  const text = await (await fetch(metricsUrl)).text();
  const counts: Counts = {};
  for (const line of text.split('\n')) {
    const m = /^(service_requests|persistence_requests)\{([^}]*)\}\s+([0-9.e+]+)$/.exec(line);
    if (!m) continue;
    const operation = /operation="([^"]+)"/.exec(m[2]!)?.[1] ?? '?';
    const service = /service_name="([^"]+)"/.exec(m[2]!)?.[1] ?? '?';
    add(counts, `${m[1]}:${service}:${operation}`, Number(m[3]));
  }
  return counts;
}

/** `after − before` per key, dropping keys that did not move. */
export function diff(after: Counts, before: Counts): Counts {
  const out: Counts = {};
  for (const [k, v] of Object.entries(after)) if (v - (before[k] ?? 0) > 0) out[k] = v - (before[k] ?? 0);
  return out;
}

export const total = (c: Counts) => Object.values(c).reduce((a, b) => a + b, 0);

/** Every value divided by `n`, rounded to two decimals. */
export const per = (c: Counts, n: number): Counts => Object.fromEntries(Object.entries(c).map(([k, v]) => [k, +(v / n).toFixed(2)]));
