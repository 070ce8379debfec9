import { z } from 'zod';

/**
 * A job's notifications (docs/jobs.md, "Notification"): a signed webhook POSTed when the job ends
 * (`job.finished`, the report) and when a call waits for a person (`job.escalation`). The secret is
 * never in the spec or the workflow's history: the spec names an environment variable of the worker
 * (`secret_env`), which the delivering activity reads.
 */

const JOB_NOTIFY_EVENTS = ['job.finished', 'job.escalation', 'job.needs_human'] as const;
const jobNotifyEventSchema = z.enum(JOB_NOTIFY_EVENTS);
export type JobNotifyEvent = z.infer<typeof jobNotifyEventSchema>;

/**
 * Only variables with this prefix may be named as a secret: a spec must not be able to make the
 * worker sign with (and so probe) an unrelated secret such as a provider's API key.
 */
const JOB_SECRET_ENV_PREFIX = 'STRAND_JOB_SECRET_';

export const jobNotifySchema = z.strictObject({
  /** Where the events are POSTed (http or https). */
  url: z.url({ protocol: /^https?$/, error: 'notify.url must be an http(s) URL' }),
  /**
   * The name of the worker's environment variable holding the HMAC secret (`STRAND_JOB_SECRET_…`).
   * Absent: the deliveries are not signed (no `X-Strand-Signature`).
   */
  secret_env: z
    .string()
    .regex(new RegExp(`^${JOB_SECRET_ENV_PREFIX}[A-Z0-9_]{1,64}$`), `secret_env names an environment variable ${JOB_SECRET_ENV_PREFIX}<NAME> (capitals, digits, _)`)
    .optional(),
  /** Which events are sent. Default all three (`job.needs_human`: the report of a job that waits for a person to resume it). */
  events: z.array(jobNotifyEventSchema).min(1).default([...JOB_NOTIFY_EVENTS]),
});
export type JobNotify = z.infer<typeof jobNotifySchema>;

/** The failure type of a delivery that must not be retried (the receiver refused; the secret is missing). */
export const NOTIFY_REFUSED_TYPE = 'JobNotificationRefused';

/** The headers of a delivery. */
export const NOTIFY_HEADERS = {
  signature: 'X-Strand-Signature',
  delivery: 'X-Strand-Delivery',
  event: 'X-Strand-Event',
  /** When this attempt was sent (ISO 8601). Not signed: a receiver dedupes by the delivery id instead. */
  timestamp: 'X-Strand-Timestamp',
} as const;

/** Stable across retries, so a receiver can drop a second copy. */
export const notifyDeliveryId = {
  finished: (jobId: string) => `job:${jobId}:report`,
  escalation: (jobId: string, toolCallId: string) => `job:${jobId}:escalation:${toolCallId}`,
  /** The report a job sends as it starts waiting for a person to resume it (one per call it stopped at). */
  needsHuman: (jobId: string, toolCallId: string) => `job:${jobId}:needs_human:${toolCallId}`,
};

/** What became of one delivery. */
export const jobNotificationOutcomeSchema = z.strictObject({
  event: jobNotifyEventSchema,
  delivery_id: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  /** When the receiver answered 2xx. */
  delivered_at: z.string().optional(),
  /** Attempts made (known when delivered, or when the last attempt's failure said). */
  attempts: z.number().int().nonnegative().optional(),
  /** Why the last attempt failed. */
  last_error: z.string().optional(),
});
export type JobNotificationOutcome = z.infer<typeof jobNotificationOutcomeSchema>;

/** The body of a `job.escalation` delivery: enough for a person to answer from the message alone. */
export interface JobEscalationNotice {
  event: 'job.escalation';
  job_id: string;
  workflow_id: string;
  tool_call_id: string;
  tool: string;
  turn_id: string;
  /** Where the rule that asked is written in the spec's policy. */
  rule_source: string;
  /** The call's arguments as JSON, cut to 2000 characters. */
  arguments_summary: string;
  /** When nobody's answer becomes the spec's `on_timeout` outcome (ISO 8601), and what that is. */
  deadline: string;
  on_timeout: 'deny' | 'skip' | 'abort';
  /** How to answer: the workflow signal and its argument. */
  answer: { signal: 'jobEscalationAnswer'; example: { tool_call_id: string; decision: 'allow' | 'deny'; by: string; reason?: string } };
}
