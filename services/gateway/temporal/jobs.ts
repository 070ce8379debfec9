import type { Client } from '@temporalio/client';
import { TURN_WORKFLOW_TYPE, turnId } from '../../../contracts/workflow-ids';
import { searchAttributeKeys as saKeys } from '../../../contracts/search-attributes';
import { turnLiveViewSchema } from '../../../contracts/session-live-view';
import { TURN_VIEW_MEMO_KEY } from '../../../contracts/turn-protocol';

const { phase: saPhase, owner: saOwner } = saKeys;

/** A turn as a job: work the agent does, with or without a client attached. */
export interface TurnJob {
  /** The turn's workflow id (`session:<id>:turn:<n>`). */
  job_id: string;
  session_id: string;
  turn_id: string;
  status: 'running' | 'completed' | 'failed' | 'cancelled' | 'terminated' | 'timed_out' | 'continued_as_new' | 'unknown';
  phase: string;
  started_at: number;
  owner?: string;
}

/** A turn's workflow page in the Temporal Web UI at `uiBase` (STRAND_TEMPORAL_UI_URL), or null without one. */
export function workflowUrl(uiBase: string | null, namespace: string, jobId: string): string | null {
  return uiBase === null ? null : `${uiBase}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(jobId)}`;
}

/** `session:<id>:turn:<n>` → its parts, or undefined for any other id. */
export function parseJobId(jobId: string): { session_id: string; turn_number: number } | undefined {
  const m = /^session:(.+):turn:(\d+)$/.exec(jobId);
  return m ? { session_id: m[1]!, turn_number: Number(m[2]) } : undefined;
}

/**
 * A running turn's phase: the view it keeps in its memo (`view_in_memo`: a session's turn, which then
 * leaves its StrandPhase search attribute at the phase it started with), else that attribute.
 */
function phaseOf(w: { memo?: Record<string, unknown> | undefined; typedSearchAttributes: { get(k: typeof saPhase): string | undefined } }): string {
  const view = turnLiveViewSchema.safeParse(w.memo?.[TURN_VIEW_MEMO_KEY]);
  return view.success ? view.data.phase : (w.typedSearchAttributes.get(saPhase) ?? 'thinking');
}

function jobOf(w: { workflowId: string; startTime: Date; status: { name: string }; memo?: Record<string, unknown> | undefined; typedSearchAttributes: { get(k: typeof saPhase): string | undefined } }): TurnJob | undefined {
  const parsed = parseJobId(w.workflowId);
  if (!parsed) return undefined;
  const status = w.status.name.toLowerCase() as TurnJob['status'];
  const owner = w.typedSearchAttributes.get(saOwner);
  return {
    job_id: w.workflowId,
    session_id: parsed.session_id,
    turn_id: turnId(parsed.turn_number),
    status,
    phase: status === 'running' ? phaseOf(w) : 'done',
    started_at: w.startTime.getTime(),
    ...(owner ? { owner } : {}),
  };
}

/** Running turns across sessions, newest first (Temporal visibility: a just-started turn shows within moments). */
export async function listRunningJobs(client: Client, owner?: string): Promise<TurnJob[]> {
  const filter = owner !== undefined ? ` AND ${saOwner.name} = '${owner.replace(/'/g, "\\'")}'` : '';
  const jobs: TurnJob[] = [];
  for await (const w of client.workflow.list({ query: `WorkflowType = '${TURN_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running'${filter}` })) {
    const job = jobOf(w);
    if (job) jobs.push(job);
  }
  return jobs.sort((a, b) => b.started_at - a.started_at);
}

/** One turn, running or not; undefined when Temporal knows no such turn. */
export async function describeJob(client: Client, jobId: string): Promise<TurnJob | undefined> {
  if (!parseJobId(jobId)) return undefined;
  try {
    return jobOf(await client.workflow.getHandle(jobId).describe());
  } catch (err) {
    if ((err as Error).name === 'WorkflowNotFoundError') return undefined;
    throw err;
  }
}
