import type { JobSessionSummary } from '../../activities/job-workspace';
import type { JobNotificationOutcome } from '../../contracts/job-notify';
import type { JobDeliverableReport, JobLimitHit, JobReport, JobStatus, JobToolCall, JobWorkspaceInfo } from '../../contracts/job-report';
import { jobRuleFor, type JobSpec } from '../../contracts/job-spec';
import type { CallDecision } from './job-run';

export interface JobOutcome {
  job_id: string;
  spec: JobSpec;
  session_id: string;
  workspace: JobWorkspaceInfo | null;
  deliverable: JobDeliverableReport | null;
  summary: JobSessionSummary | null;
  decisions: ReadonlyMap<string, CallDecision>;
  turns: JobReport['turns'];
  limits_hit: JobLimitHit[];
  cancelled: boolean;
  needs_human?: string;
  /** Why the job could not even work (its workspace refused, its session not created). */
  failure?: string;
  started_ms: number;
  finished_ms: number;
  /** Escalation notifications sent while the job ran. */
  notifications?: JobNotificationOutcome[];
  /** The watchdog's diagnoses. */
  stalls?: string[];
  /** Who resumed the job from `needs_human`, and when. */
  resumed?: NonNullable<JobReport['resumed']>;
}

/** The status and its reason, in order of precedence. */
export function jobStatus(o: JobOutcome): { status: JobStatus; reason?: string } {
  if (o.cancelled) return { status: 'cancelled', reason: 'the job was cancelled' };
  if (o.needs_human) return { status: 'needs_human', reason: o.needs_human };
  if (o.failure) return { status: 'failed', reason: o.failure };
  const failedTurn = o.turns.find((t) => t.outcome === 'error');
  if (failedTurn) return { status: 'failed', reason: `the ${failedTurn.kind === 'wrap_up' ? 'wrap-up' : failedTurn.kind} turn ${failedTurn.turn_id} ended with an error` };
  if (!o.deliverable?.verified) return { status: 'failed', reason: `the deliverable did not verify: ${o.deliverable?.problems.join('; ') || 'it was not collected'}` };
  if (o.limits_hit.length > 0) return { status: 'partial', reason: `limits reached: ${o.limits_hit.join(', ')}` };
  return { status: 'succeeded' };
}

/** The report: the conversation's record of each call joined with the job's decisions and the policy. */
export function buildJobReport(o: JobOutcome): JobReport {
  const calls = o.summary?.tool_calls ?? [];
  const tool_calls: JobToolCall[] = calls.map((c) => {
    const match = jobRuleFor(o.spec.policy, c.tool);
    const d = o.decisions.get(c.tool_call_id);
    const outcome: JobToolCall['outcome'] = c.not_run ? (d && d.outcome !== 'ran' ? d.outcome : 'not_run') : 'ran';
    return {
      tool_call_id: c.tool_call_id,
      tool: c.tool,
      turn: c.turn,
      rule: match.rule,
      rule_source: match.source,
      outcome,
      decided_by: d?.decided_by ?? (c.not_run ? 'job' : 'policy'),
      ...(d?.answered_by ? { answered_by: d.answered_by } : {}),
      ...(d?.reason ? { reason: d.reason } : {}),
      is_error: c.is_error,
    };
  });
  const commands = calls.flatMap((c) => (c.command !== undefined ? [{ tool_call_id: c.tool_call_id, command: c.command, exit_code: c.exit_code }] : []));
  const { status, reason } = jobStatus(o);
  return {
    version: 1,
    job_id: o.job_id,
    status,
    ...(reason ? { reason } : {}),
    summary: o.summary?.final_answer ?? '',
    session_id: o.session_id,
    workspace: o.workspace,
    deliverable: o.deliverable,
    commands,
    tool_calls,
    usage: o.summary?.usage ?? { cost_usd: 0, tokens: 0, steps: 0 },
    turns: o.turns,
    limits_hit: o.limits_hit,
    started_at: new Date(o.started_ms).toISOString(),
    finished_at: new Date(o.finished_ms).toISOString(),
    duration_ms: Math.max(0, o.finished_ms - o.started_ms),
    ...(o.notifications?.length ? { notifications: o.notifications } : {}),
    ...(o.stalls?.length ? { stalls: o.stalls } : {}),
    ...(o.resumed?.length ? { resumed: o.resumed } : {}),
  };
}
