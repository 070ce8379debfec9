import { z } from 'zod';
import { jobSpecSchema } from './job-spec';
import { jobStatusSchema } from './job-report';

/**
 * Scheduled jobs (docs/jobs.md, "Schedules"): a job spec run on a Temporal Schedule, and the ledger
 * of every run that was due. The gateway creates the schedule; each due run starts the workflow
 * `scheduledJobRun`, which records the run and starts the job as its child.
 */

/** Names a schedule, its jobs (`<name>-<yyyymmdd>-<hhmmss>`) and its Temporal schedule; short enough that the job id stays a valid one. */
const scheduleNameSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'schedule names are 1-40 lowercase letters, digits and dashes');

const overlapPolicySchema = z.enum(['skip', 'buffer_one', 'cancel_other', 'allow_all']);
export type OverlapPolicy = z.infer<typeof overlapPolicySchema>;

/** `30s`, `15m`, `1h`, `2d`: a whole number and its unit. */
const intervalSchema = z.string().regex(/^[1-9][0-9]{0,6}[smhd]$/, 'an interval is a whole number and a unit: 30s, 15m, 1h, 2d');

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
export function intervalMs(interval: string): number {
  return Number(interval.slice(0, -1)) * UNIT_MS[interval.slice(-1) as keyof typeof UNIT_MS];
}

/** `POST /api/schedules`. */
export const scheduleCreateBodySchema = z
  .object({
    name: scheduleNameSchema,
    spec: jobSpecSchema,
    cron: z.string().min(1).max(200).optional().describe('A cron expression (`0 3 * * *`: every day at 03:00), read by Temporal. Exactly one of `cron` and `interval`.'),
    interval: intervalSchema.optional().describe('Every so long (`30s`, `15m`, `1h`, `2d`), counted from the Unix epoch. Exactly one of `cron` and `interval`.'),
    timezone: z.string().min(1).max(100).optional().describe('The IANA time zone `cron` is read in. Default UTC.'),
    overlap: overlapPolicySchema.default('skip').describe("When a run is due while the previous one still runs: `skip` it (the default), `buffer_one` (run it after, at most one waiting), `cancel_other` (cancel the running one), `allow_all` (run both). Temporal's own overlap policy."),
    catchup_window_s: z.number().int().min(10).max(366 * 86_400).optional().describe('How late (after an outage of Temporal) a due run may still start; later ones are skipped as `catchup_missed`. Default one year (Temporal\'s).'),
    pause_on_failure: z.boolean().default(false).describe('Pause the schedule when a run fails (its job ends `failed`).'),
    notes: z.boolean().default(false).describe("Notes between runs: each run's prompt starts with the previous finished run's summary, so the job can report only what changed."),
  })
  .refine((b) => (b.cron === undefined) !== (b.interval === undefined), { message: 'give exactly one of cron and interval', path: ['cron'] })
  .refine((b) => b.timezone === undefined || b.cron !== undefined, { message: 'timezone applies to cron only', path: ['timezone'] });

export const schedulePauseBodySchema = z.object({ note: z.string().max(1000).optional().describe('Why; shown with the schedule.') });
export const scheduleBackfillBodySchema = z
  .object({
    from: z.iso.datetime({ offset: true }).describe('The first due time to run (inclusive), ISO 8601.'),
    to: z.iso.datetime({ offset: true }).describe('The last due time to run (inclusive), ISO 8601.'),
  })
  .refine((b) => Date.parse(b.from) <= Date.parse(b.to), { message: 'from must not be after to', path: ['from'] });
export const scheduleRunsQuerySchema = z.object({
  limit: z
    .string()
    .regex(/^[1-9]\d{0,3}$/, 'limit is a whole number from 1 to 1000')
    .refine((l) => Number(l) <= 1000, 'limit is a whole number from 1 to 1000')
    .optional()
    .describe('The latest so many due times (1 to 1000). Default 100.'),
});

/** What the run workflow is started with; fixed when the schedule is created. */
export const scheduledJobRunInputSchema = z.object({
  schedule: scheduleNameSchema,
  /** Tells this schedule's ledger apart from an earlier schedule of the same name (deleted, then created again). */
  generation: z.string().min(1),
  spec: jobSpecSchema,
  notes: z.boolean(),
  pause_on_failure: z.boolean(),
});
export type ScheduledJobRunInput = z.input<typeof scheduledJobRunInputSchema>;

export const SCHEDULED_JOB_RUN_WORKFLOW_TYPE = 'scheduledJobRun';

/** The Temporal schedule of a job schedule. */
export function temporalScheduleId(name: string): string {
  return `job-schedule:${name}`;
}
export const TEMPORAL_SCHEDULE_ID_PREFIX = 'job-schedule:';

/** The run workflows' id as the schedule's action names it; Temporal appends `-<due time, RFC 3339, seconds>`. */
export function runWorkflowIdPrefix(name: string): string {
  return `job-schedule:${name}:run`;
}

/** The run workflow of the run due at `dueMs`, as Temporal names it. */
export function runWorkflowId(name: string, dueMs: number): string {
  return `${runWorkflowIdPrefix(name)}-${new Date(Math.floor(dueMs / 1000) * 1000).toISOString().replace('.000Z', 'Z')}`;
}

/**
 * A triggered run's workflow, started by the gateway rather than by Temporal's trigger: Temporal names
 * a triggered run by its second, like the scheduled run due in that second, and starts only one of
 * the two — the trigger vanished. Milliseconds tell them apart.
 */
export function triggerWorkflowId(name: string, atMs: number): string {
  return `job-schedule:${name}:trigger-${new Date(atMs).toISOString()}`;
}

/** The due time a run workflow's id carries (Temporal's suffix, or a trigger's), or undefined for an id of another form. */
export function dueTimeOfRunWorkflow(workflowId: string): number | undefined {
  const m = /-(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z)$/.exec(workflowId);
  return m ? Date.parse(m[1]!) : undefined;
}

/** The job a run starts: `<name>-<yyyymmdd>-<hhmmss>` (UTC; a trigger's with `-<ms>` after), a valid job id for any schedule name. */
export function scheduledJobId(name: string, dueMs: number): string {
  const iso = new Date(dueMs).toISOString();
  const base = `${name}-${iso.slice(0, 10).replace(/-/g, '')}-${iso.slice(11, 19).replace(/:/g, '')}`;
  return dueMs % 1000 === 0 ? base : `${base}-${iso.slice(20, 23)}`;
}

/** What a run's job is: running, waiting for a worker to pick its run up, or its report's status. */
const ledgerJobStatusSchema = z.union([z.enum(['running', 'waiting_for_worker', 'unknown']), jobStatusSchema]);

const ledgerEntrySchema = z.object({
  due_at: z.string().describe('When the run was due (ISO 8601); a trigger\'s is when it was asked for.'),
  kind: z.enum(['scheduled', 'backfill', 'trigger']),
  outcome: z.enum(['ran', 'skipped', 'pending']).describe('`pending`: due, but Temporal has not yet acted on it.'),
  reason: z.enum(['overlap', 'paused', 'catchup_missed']).optional().describe('Why a run was skipped: the previous run still ran (overlap policy), the schedule was paused, or it was due too long ago when Temporal got to it.'),
  job_id: z.string().optional(),
  job_status: ledgerJobStatusSchema.optional(),
  job_reason: z.string().optional().describe("The job's report's reason, when not succeeded."),
  started_at: z.string().optional(),
  finished_at: z.string().optional(),
});
export type LedgerEntry = z.infer<typeof ledgerEntrySchema>;

export const scheduleRunsSchema = z.object({
  name: z.string(),
  runs: z.array(ledgerEntrySchema).describe('Oldest first.'),
  counts: z.object({ ran: z.number().int(), skipped: z.number().int(), pending: z.number().int() }).describe('Of the runs listed.'),
});

export const scheduleViewSchema = z.object({
  name: z.string(),
  spec: jobSpecSchema,
  cron: z.string().optional(),
  interval: z.string().optional(),
  timezone: z.string().optional(),
  overlap: overlapPolicySchema,
  catchup_window_s: z.number().int(),
  pause_on_failure: z.boolean(),
  notes: z.boolean(),
  state: z.object({ paused: z.boolean(), note: z.string().optional() }),
  next_runs: z.array(z.string()).describe('The next due times (ISO 8601), as Temporal lists them: listed while paused too, when they will be skipped.'),
  created_at: z.string(),
  temporal: z
    .object({ schedule_id: z.string(), actions_taken: z.number().int(), skipped_overlap: z.number().int(), missed_catchup_window: z.number().int() })
    .describe("Temporal's own counts over the schedule's life (the ledger lists each run)."),
});
export type ScheduleView = z.infer<typeof scheduleViewSchema>;

export const scheduleDetailSchema = scheduleViewSchema.extend({ ledger: scheduleRunsSchema.shape.runs.describe('The latest 20 due runs, oldest first (all of them: GET …/runs).') });

const scheduleSummarySchema = z.object({ name: z.string(), paused: z.boolean(), next_runs: z.array(z.string()) });
export const scheduleListSchema = z.object({ schedules: z.array(scheduleSummarySchema) });
export const scheduleActionSchema = z.object({ name: z.string(), status: z.enum(['created', 'paused', 'resumed', 'triggered', 'backfilling', 'deleted']) });
