import { performance } from 'node:perf_hooks';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { median, ms, percentile } from '../stats';

const T = temporal.api.enums.v1.EventType;

/** Wall-clock milliseconds since the epoch (the Temporal server stamps its history events with them). */
export const epochMs = (): number => performance.timeOrigin + performance.now();

/** One turn as the client saw it: when its prompt went, when its first step (or delta) arrived. */
export interface TurnTimes {
  sessionWorkflowId: string;
  turnWorkflowId: string;
  sentAt: number;
  firstAt: number;
}

/**
 * The hops of a turn's path to its first step, timed by the Temporal server's own history events (the
 * same clock as the client's: one machine), so strand and the floor are cut at the same points:
 * - `to_session_task`: the prompt sent → the session's workflow task scheduled (the update reached
 *   the server: for strand, through the gateway);
 * - `session_task`: that task scheduled → completed (the worker took it and ran the update: for
 *   strand, with its local activities);
 * - `child_started`: → the turn's child workflow started;
 * - `turn_first_task`: the child started → its first workflow task completed (a new run's start);
 * - `activity_dispatch`: → the model step activity started;
 * - `to_first`: → the step's first output at the client (strand: the first delta over SSE; the floor:
 *   the activity running in the bench process).
 */
const HOPS = ['to_session_task', 'session_task', 'child_started', 'turn_first_task', 'activity_dispatch', 'to_first'] as const;
type Hop = (typeof HOPS)[number];

interface Event {
  type: number;
  at: number;
}

async function history(client: Client, workflowId: string): Promise<Event[]> {
  const h = await client.workflow.getHandle(workflowId).fetchHistory();
  return (h.events ?? []).map((e) => ({ type: Number(e.eventType), at: Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6 }));
}

/** The hop durations of one turn, or null when its history does not show the path (it ended another way). */
async function turnHops(client: Client, turn: TurnTimes, sessionEvents?: Event[]): Promise<Record<Hop, number> | null> {
  const session = sessionEvents ?? (await history(client, turn.sessionWorkflowId));
  const child = await history(client, turn.turnWorkflowId);
  const scheduled = session.find((e) => e.type === T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED && e.at >= turn.sentAt);
  const completed = scheduled && session.find((e) => e.type === T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED && e.at >= scheduled.at);
  const started = child.find((e) => e.type === T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED);
  const firstTask = child.find((e) => e.type === T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
  const activityStarted = child.find((e) => e.type === T.EVENT_TYPE_ACTIVITY_TASK_STARTED);
  if (!scheduled || !completed || !started || !firstTask || !activityStarted) return null;
  return {
    to_session_task: scheduled.at - turn.sentAt,
    session_task: completed.at - scheduled.at,
    child_started: started.at - completed.at,
    turn_first_task: firstTask.at - started.at,
    // The activity's started event is written when it starts (or, run eagerly, with the time it started).
    activity_dispatch: activityStarted.at - firstTask.at,
    to_first: turn.firstAt - activityStarted.at,
  };
}

/** p50 and p99 of each hop over `turns` (histories read once per session). */
export async function hopFigures(client: Client, turns: TurnTimes[]): Promise<Record<Hop, { p50: number; p99: number }> & { turns: number }> {
  const sessions = new Map<string, Event[]>();
  const rows: Record<Hop, number>[] = [];
  for (const turn of turns) {
    if (!sessions.has(turn.sessionWorkflowId)) sessions.set(turn.sessionWorkflowId, await history(client, turn.sessionWorkflowId));
    const row = await turnHops(client, turn, sessions.get(turn.sessionWorkflowId));
    if (row) rows.push(row);
  }
  const out = Object.fromEntries(HOPS.map((h) => [h, { p50: ms(median(rows.map((r) => r[h]))), p99: ms(percentile(rows.map((r) => r[h]), 99)) }]));
  return { ...(out as Record<Hop, { p50: number; p99: number }>), turns: rows.length };
}
