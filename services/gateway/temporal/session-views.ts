import { WorkflowNotFoundError, type Client, type WorkflowExecutionInfo } from '@temporalio/client';
import { SESSION_VIEW_MEMO_KEY, sessionLiveViewSchema, turnLiveViewSchema, withTurnView, type SessionLiveView, type TurnLiveView } from '../../../contracts/session-live-view';
import { TURN_VIEW_MEMO_KEY } from '../../../contracts/turn-protocol';
import { SESSION_WORKFLOW_TYPE, TURN_WORKFLOW_TYPE, sessionWorkflowId, turnNumberOf, turnWorkflowId } from '../../../contracts/workflow-ids';

/**
 * What Temporal's server alone says of a session (contracts/session-live-view.ts): `active` with the
 * view its workflow keeps in its memo, `dormant` when no run is open, `unknown` with the reason when the
 * answer could not be had. `needsQuery`: the run is open but keeps no view (started by older code, or
 * so new its first task has not run): only a query can tell.
 */
export type SessionRead =
  | { status: 'active'; view: SessionLiveView }
  | { status: 'dormant' }
  | { status: 'unknown'; reason: string }
  | { status: 'needsQuery' };

/** The view in a run's memo, or undefined when it has none (or one this gateway cannot read). */
function viewIn(memo: Record<string, unknown> | undefined): SessionLiveView | undefined {
  const parsed = sessionLiveViewSchema.safeParse(memo?.[SESSION_VIEW_MEMO_KEY]);
  return parsed.success ? parsed.data : undefined;
}

function readOf(info: Pick<WorkflowExecutionInfo, 'status' | 'memo'>): SessionRead {
  if (info.status.name !== 'RUNNING') return { status: 'dormant' };
  const view = viewIn(info.memo);
  return view ? { status: 'active', view } : { status: 'needsQuery' };
}

/** The running turn's own view in a turn run's memo (`view_in_memo`), or undefined. */
function turnViewIn(memo: Record<string, unknown> | undefined): TurnLiveView | undefined {
  const parsed = turnLiveViewSchema.safeParse(memo?.[TURN_VIEW_MEMO_KEY]);
  return parsed.success ? parsed.data : undefined;
}

/** The workflow id of the turn whose view goes over the session's, when its view says it keeps one. */
function viewKeepingTurn(sessionId: string, view: SessionLiveView): string | undefined {
  const n = view.turn_keeps_view && view.active_turn !== null ? turnNumberOf(view.active_turn) : undefined;
  return n === undefined ? undefined : turnWorkflowId(sessionId, n);
}

/**
 * One session: a `DescribeWorkflowExecution` of its workflow id (the latest run), exact; while a
 * turn that keeps its own view runs (contracts/session-live-view.ts, `withTurnView`), a second one of
 * that turn, whose memo has its phase as of its last report.
 */
export async function describeSession(client: Client, sessionId: string): Promise<SessionRead> {
  let read: SessionRead;
  try {
    read = readOf(await client.workflow.getHandle(sessionWorkflowId(sessionId)).describe());
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return { status: 'dormant' };
    throw err;
  }
  const turn = read.status === 'active' ? viewKeepingTurn(sessionId, read.view) : undefined;
  if (read.status !== 'active' || turn === undefined) return read;
  try {
    return { status: 'active', view: withTurnView(read.view, turnViewIn((await client.workflow.getHandle(turn).describe()).memo)) };
  } catch (err) {
    // Not started yet (its start is in the same task as the view naming it), or gone: the session's view holds.
    if (err instanceof WorkflowNotFoundError) return read;
    throw err;
  }
}

/** A visibility query's string literal. */
const literal = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/**
 * Many sessions in one visibility query (`WorkflowId IN (…)`, open runs only): a session not in the
 * answer has no open run (dormant). The visibility store trails the workflow by moments (its records
 * are written after the workflow's own state), so the list may show a change a moment late, where
 * `describeSession` is exact.
 */
export async function listSessions(client: Client, sessionIds: readonly string[]): Promise<Map<string, SessionRead>> {
  const reads = new Map<string, SessionRead>(sessionIds.map((id) => [id, { status: 'dormant' }]));
  if (sessionIds.length === 0) return reads;
  const ids = sessionIds.map((id) => literal(sessionWorkflowId(id))).join(', ');
  const query = `WorkflowType = '${SESSION_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running' AND WorkflowId IN (${ids})`;
  const bySessionWorkflow = new Map(sessionIds.map((id) => [sessionWorkflowId(id), id]));
  for await (const info of client.workflow.list({ query, pageSize: sessionIds.length })) {
    const id = bySessionWorkflow.get(info.workflowId);
    if (id !== undefined) reads.set(id, readOf(info));
  }
  return withTurnViews(client, reads);
}

/** The running turns' own views over their sessions' (`withTurnView`), from one more visibility query. */
async function withTurnViews(client: Client, reads: Map<string, SessionRead>): Promise<Map<string, SessionRead>> {
  const turns = new Map<string, string>();
  for (const [id, read] of reads) {
    const turn = read.status === 'active' ? viewKeepingTurn(id, read.view) : undefined;
    if (turn !== undefined) turns.set(turn, id);
  }
  if (turns.size === 0) return reads;
  const query = `WorkflowType = '${TURN_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running' AND WorkflowId IN (${[...turns.keys()].map(literal).join(', ')})`;
  for await (const info of client.workflow.list({ query, pageSize: turns.size })) {
    const id = turns.get(info.workflowId);
    const read = id !== undefined ? reads.get(id) : undefined;
    if (id !== undefined && read?.status === 'active') reads.set(id, { status: 'active', view: withTurnView(read.view, turnViewIn(info.memo)) });
  }
  return reads;
}
