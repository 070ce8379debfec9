import { z } from 'zod';
import { jobReportSchema, jobStatusSchema } from './job-report';
import { jobIdSchema, jobSpecSchema } from './job-spec';
import { turnSchema } from './http-replies';

/**
 * The HTTP shapes of unattended jobs (docs/jobs.md, docs/http.md): the body that starts one, and
 * the replies of the routes that list, show, cancel and answer them. The spec and the report are
 * the job's own contracts (job-spec.ts, job-report.ts); these only wrap them.
 */

const epochMs = z.number().int().describe('Milliseconds since epoch.');
const count = z.number().int().nonnegative();

/** `POST /api/jobs`: the spec, and optionally the job's id (the same id twice starts one job). */
export const jobStartBodySchema = jobSpecSchema.extend({
  job_id: jobIdSchema
    .optional()
    .describe('The job\'s id: 1–63 lowercase letters, digits and dashes. Sending the same id (or `Idempotency-Key`) again with the same spec answers the existing job; with another spec, 409 JOB_EXISTS. Default: a fresh id.'),
});

/** `POST /api/jobs` → 202 (started) or 200 (this id already runs or ran this spec). */
export const jobStartedSchema = z.object({
  job_id: z.string(),
  session_id: z.string().describe("The job's session: follow it with `GET /api/sessions/{id}/events` (as the job's owner)."),
  status_url: z.string().describe('`/api/jobs/{job_id}`: its progress, then its report.'),
  report_url: z.string().describe('`/api/jobs/{job_id}/report`: the report once the job has ended (409 JOB_NOT_FINISHED before).'),
});
export type JobStarted = z.infer<typeof jobStartedSchema>;

/** A job's status: `running`, the report's status once it ended, or how its workflow ended without a report. */
const jobViewStatusSchema = z.union([
  z.literal('running'),
  jobStatusSchema,
  z.enum(['terminated', 'timed_out']).describe('The workflow was ended from outside (a Temporal terminate, an execution timeout): no report.'),
]);
export type JobViewStatus = z.infer<typeof jobViewStatusSchema>;

/** What a job's start recorded with it (its workflow's memo), so a list needs no more than visibility. */
const jobFactsSchema = z.object({
  job_id: z.string(),
  status: jobViewStatusSchema,
  session_id: z.string(),
  owner: z.string().optional(),
  /** The prompt's first line (at most 200 characters). */
  title: z.string(),
  project_path: z.string(),
  model: z.string(),
  started_at: epochMs,
  closed_at: epochMs.nullable().describe('When the job ended; null while it runs.'),
});
export type JobFacts = z.infer<typeof jobFactsSchema>;

const jobEscalationSchema = z.object({
  tool_call_id: z.string(),
  tool: z.string(),
  turn_id: z.string(),
  rule_source: z.string().describe('Where the `escalate` rule is written in the spec: `tools.shell_exec`, `mcp_tools.github/*`, `default`.'),
  expires_at: epochMs.describe("When nobody's answer is taken as the spec's `escalation.on_timeout`."),
});

/** Where a running job is: its workflow's `jobProgress` query and its session's spending so far. */
const jobProgressSchema = z.object({
  phase: z.enum(['preparing', 'working', 'wrapping_up', 'collecting', 'done']),
  turn_id: z.string().nullable(),
  step: z.number().int().nullable(),
  steps: count.describe('Model steps recorded so far.'),
  cost_usd: z.number().nonnegative(),
  tokens: count,
  escalations: z.array(jobEscalationSchema).describe('Calls waiting for a person: answer with `POST /api/jobs/{id}/escalations/{tool_call_id}`.'),
  needs_human: z
    .object({ reason: z.string(), tool_call_id: z.string(), tool: z.string(), since: epochMs, resume_by: epochMs.describe('Past it, nobody having resumed it, the job ends `needs_human`.') })
    .optional()
    .describe('The job reported `needs_human` and waits for a person: resume it with `POST /api/jobs/{id}/resume`.'),
});
export type JobProgress = z.infer<typeof jobProgressSchema>;

/** `GET /api/jobs/{id}`: the job, with its progress while it runs and its report once it ended. */
export const jobViewSchema = jobFactsSchema.extend({
  progress: jobProgressSchema.nullable().describe('While it runs; null when its worker did not answer the query in time, and once it ended.'),
  report: jobReportSchema.nullable().describe('Once it ended with a report.'),
});
export type JobView = z.infer<typeof jobViewSchema>;

/** `POST /api/jobs/{id}/cancel`. */
export const jobCancelReplySchema = z.object({
  job_id: z.string(),
  status: z.enum(['cancel_requested', 'not_running']).describe('`cancel_requested`: Temporal accepted the cancel; the job stops its turn, collects what was done and reports `cancelled`.'),
});

/** `POST /api/jobs/{id}/resume`: the person's decision for the call the job stopped at, and a message the model reads. */
export const jobResumeBodySchema = z.strictObject({
  decision: z.enum(['allow', 'deny']).describe('Run the call the job stopped at (`allow`), or refuse it (`deny`).'),
  message: z.string().min(1).max(4000).optional().describe('For the model: with `deny` the refusal\'s reason, with `allow` read after the call.'),
});

export const jobResumedSchema = z.object({
  job_id: z.string(),
  tool_call_id: z.string().describe('The call the job stopped at, now decided.'),
  decision: z.enum(['allow', 'deny']),
  by: z.string().describe("The caller's principal; the report's `resumed` names it."),
});
export type JobResumed = z.infer<typeof jobResumedSchema>;

/** `POST /api/jobs/{id}/escalations/{tool_call_id}`. */
export const escalationAnswerBodySchema = z.object({
  decision: z.enum(['allow', 'deny']),
  reason: z.string().max(2000).optional(),
});

export const escalationAnsweredSchema = z.object({
  job_id: z.string(),
  tool_call_id: z.string(),
  decision: z.enum(['allow', 'deny']),
  by: z.string().describe("The caller's principal; the report names it as `answered_by`."),
});
export type JobCancelReply = z.infer<typeof jobCancelReplySchema>;

/** `GET /api/jobs?status=&limit=`. */
export const jobListQuerySchema = z.object({
  status: jobViewStatusSchema.optional().describe('Only the jobs of this status (`running`, or a report status such as `succeeded`).'),
  limit: z.coerce.number().int().min(1).max(200).default(50).describe('At most this many jobs, newest first.'),
});
export type JobListFilter = z.infer<typeof jobListQuerySchema>;

/**
 * `GET /api/jobs`: the caller's jobs, newest first. For one release the list also carries the
 * caller's running turns, which `GET /api/jobs` used to list (now `GET /api/turns`).
 */
export const jobListSchema = z.object({
  jobs: z.array(jobFactsSchema),
  running_turns: z.array(turnSchema).meta({ deprecated: true }).describe('Deprecated: the running turns `GET /api/jobs` listed before it meant unattended jobs; read `GET /api/turns`. Gone in the next release.'),
});
