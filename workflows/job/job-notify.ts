import * as wf from '@temporalio/workflow';
import type { JobAftercareActivities } from '../../activities/job-notify';
import type { JobActivities } from '../../activities/job-workspace';
import { NOTIFY_REFUSED_TYPE, notifyDeliveryId, type JobEscalationNotice, type JobNotificationOutcome, type JobNotify, type JobNotifyEvent } from '../../contracts/job-notify';
import { jobWorkflowId } from '../../contracts/job-workflow';
import { storeRetry } from '../retry-policies';

const session = wf.proxyActivities<Pick<JobActivities, 'jobToolCallArguments'>>({ startToCloseTimeout: '1 minute', retry: { ...storeRetry, maximumAttempts: 5 } });

/**
 * Delivers one notification with Temporal's retries (docs/jobs.md, "Notification"): from 2 s,
 * doubling, at most 5 minutes apart, for up to `for_ms` (a day for the report, the escalation's
 * own timeout for an escalation). A receiver's 4xx other than 408/429 is final (the activity says so).
 */
export async function deliverNotification(notify: JobNotify, event: JobNotifyEvent, delivery_id: string, payload: unknown, for_ms: number): Promise<JobNotificationOutcome> {
  const acts = wf.proxyActivities<JobAftercareActivities>({
    startToCloseTimeout: '1 minute',
    scheduleToCloseTimeout: for_ms,
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', nonRetryableErrorTypes: [NOTIFY_REFUSED_TYPE] },
  });
  const base = { event, delivery_id };
  try {
    const done = await acts.deliverJobNotification({ url: notify.url, ...(notify.secret_env ? { secret_env: notify.secret_env } : {}), event, delivery_id, payload });
    return { ...base, status: 'delivered', delivered_at: done.delivered_at, attempts: done.attempts };
  } catch (err) {
    if (!(err instanceof wf.ActivityFailure)) throw err;
    // The last attempt's own failure (under a timeout's when the time ran out) says which attempt it was.
    let cause: Error | undefined = err.cause;
    while (cause && !(cause instanceof wf.ApplicationFailure) && cause.cause instanceof Error) cause = cause.cause;
    const app = cause instanceof wf.ApplicationFailure ? cause : undefined;
    const attempt = (app?.details?.[0] as { attempt?: unknown } | undefined)?.attempt;
    const timedOut = err.cause instanceof wf.TimeoutFailure ? `gave up after ${Math.round(for_ms / 1000)} s` : undefined;
    const last_error = [timedOut, app?.message ?? err.cause?.message].filter(Boolean).join(': ') || 'the delivery failed';
    return { ...base, status: 'failed', ...(typeof attempt === 'number' ? { attempts: attempt } : {}), last_error };
  }
}

/** Whether the spec asks for this event. */
export function wants(notify: JobNotify | undefined, event: JobNotifyEvent): notify is JobNotify {
  return notify !== undefined && notify.events.includes(event);
}

export interface EscalationToNotify {
  job_id: string;
  session_id: string;
  tool_call_id: string;
  tool: string;
  turn_id: string;
  rule_source: string;
  expires_at: number;
  on_timeout: JobEscalationNotice['on_timeout'];
}

/**
 * `job.escalation`: the call, its arguments, how to answer and until when. Retried until the
 * escalation's own deadline (an answer after it changes nothing).
 */
export async function notifyEscalation(notify: JobNotify, e: EscalationToNotify): Promise<JobNotificationOutcome> {
  const delivery_id = notifyDeliveryId.escalation(e.job_id, e.tool_call_id);
  const arguments_summary = await session.jobToolCallArguments({ session_id: e.session_id, tool_call_id: e.tool_call_id }).catch(() => '(not readable)');
  const payload: JobEscalationNotice = {
    event: 'job.escalation',
    job_id: e.job_id,
    workflow_id: jobWorkflowId(e.job_id),
    tool_call_id: e.tool_call_id,
    tool: e.tool,
    turn_id: e.turn_id,
    rule_source: e.rule_source,
    arguments_summary,
    deadline: new Date(e.expires_at).toISOString(),
    on_timeout: e.on_timeout,
    answer: { signal: 'jobEscalationAnswer', example: { tool_call_id: e.tool_call_id, decision: 'allow', by: 'your name', reason: 'optional' } },
  };
  return deliverNotification(notify, 'job.escalation', delivery_id, payload, Math.max(1000, e.expires_at - Date.now()));
}
