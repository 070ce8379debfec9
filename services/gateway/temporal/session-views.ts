import { WorkflowNotFoundError, type Client, type WorkflowExecutionInfo } from '@temporalio/client';
import { SESSION_VIEW_MEMO_KEY, sessionLiveViewSchema, type SessionLiveView } from '../../../contracts/session-live-view';
import { SESSION_WORKFLOW_TYPE, sessionWorkflowId } from '../../../contracts/workflow-ids';

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

/** One session: a `DescribeWorkflowExecution` of its workflow id (the latest run), exact. */
export async function describeSession(client: Client, sessionId: string): Promise<SessionRead> {
  try {
    return readOf(await client.workflow.getHandle(sessionWorkflowId(sessionId)).describe());
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return { status: 'dormant' };
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
  return reads;
}
