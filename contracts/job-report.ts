import { z } from 'zod';
import { jobNotificationOutcomeSchema } from './job-notify';
import { jobRuleSchema } from './job-spec';

/**
 * What a job hands back (docs/jobs.md): how it ended, the final answer, the deliverable (branch,
 * commits, files with line counts, the patch), every command with its exit code, cost and tokens,
 * duration, and per tool call which policy rule decided it and who answered. Plain JSON: it is the
 * job workflow's result.
 */

export const jobStatusSchema = z.enum(['succeeded', 'partial', 'failed', 'cancelled', 'needs_human']);
export type JobStatus = z.infer<typeof jobStatusSchema>;

/** Which limit a job reached: a soft one leads to the wrap-up turn, a hard one stops the work. */
const jobLimitHitSchema = z.enum(['steps_soft', 'steps', 'budget_soft', 'budget', 'deadline_soft', 'deadline_hard']);
export type JobLimitHit = z.infer<typeof jobLimitHitSchema>;

export const jobWorkspaceInfoSchema = z.strictObject({
  kind: z.enum(['git_worktree', 'copy']),
  /** The folder every tool of the job is confined to. */
  path: z.string(),
  /** The job's branch (`strand/job-<id>`) in a git worktree. */
  branch: z.string().nullable(),
  /** The commit the branch started from. */
  base_commit: z.string().nullable(),
  /** The repository the worktree belongs to (the project path's repository root). */
  repository: z.string().nullable(),
  /**
   * The task queue of the worker host that made the workspace (`<task queue>@<host id>`): the job's
   * later workspace activities and its turns run there (docs/jobs.md, "Worker faults and several
   * hosts"). Absent from a worker without per-host queues: any worker then runs them.
   */
  task_queue: z.string().min(1).optional(),
});
export type JobWorkspaceInfo = z.infer<typeof jobWorkspaceInfoSchema>;

const jobFileChangeSchema = z.strictObject({
  path: z.string(),
  /** Lines added and removed (`git diff --numstat`); null for a binary file. */
  added: z.number().int().nonnegative().nullable(),
  removed: z.number().int().nonnegative().nullable(),
});
export type JobFileChange = z.infer<typeof jobFileChangeSchema>;

const jobDeliverableReportSchema = z.strictObject({
  branch: z.string().nullable(),
  /** Commits on the job's branch since its base, oldest first. */
  commits: z.array(z.strictObject({ sha: z.string(), subject: z.string() })),
  files: z.array(jobFileChangeSchema),
  /** The diff from the base to the branch's head as a patch file; null when none was written. */
  patch_path: z.string().nullable(),
  /** The branch exists and holds exactly the diff named here (files, line counts, patch). */
  verified: z.boolean(),
  /** Why verification failed (empty when verified). */
  problems: z.array(z.string()),
});
export type JobDeliverableReport = z.infer<typeof jobDeliverableReportSchema>;

const jobCommandSchema = z.strictObject({
  tool_call_id: z.string(),
  command: z.string(),
  /** Null when the command did not run to an exit (refused, killed, cut off). */
  exit_code: z.number().int().nullable(),
});

const jobToolCallSchema = z.strictObject({
  tool_call_id: z.string(),
  tool: z.string(),
  turn: z.string(),
  rule: jobRuleSchema,
  /** Where the rule is written in the spec's policy: `tools.shell_exec`, `mcp_tools.srv/*`, `default`. */
  rule_source: z.string(),
  /** What became of the call. */
  outcome: z.enum(['ran', 'denied', 'skipped', 'not_run']),
  /** Who decided: the policy alone, a person (an escalation's answer), the escalation's timeout, or the job (a limit, the wrap-up). */
  decided_by: z.enum(['policy', 'person', 'timeout', 'job']),
  /** The person's name when one answered, their reason, or the job's. */
  answered_by: z.string().optional(),
  reason: z.string().optional(),
  /** The tool's own result was an error. */
  is_error: z.boolean(),
});
export type JobToolCall = z.infer<typeof jobToolCallSchema>;

export const jobReportSchema = z.strictObject({
  version: z.literal(1),
  job_id: z.string(),
  status: jobStatusSchema,
  /** Why a job did not succeed, in one sentence. */
  reason: z.string().optional(),
  /** The agent's final answer (of the wrap-up turn when one ran). */
  summary: z.string(),
  session_id: z.string(),
  workspace: jobWorkspaceInfoSchema.nullable(),
  deliverable: jobDeliverableReportSchema.nullable(),
  commands: z.array(jobCommandSchema),
  tool_calls: z.array(jobToolCallSchema),
  usage: z.strictObject({ cost_usd: z.number().nonnegative(), tokens: z.number().int().nonnegative(), steps: z.number().int().nonnegative() }),
  /** `retry`: the turn the watchdog started after the work turn stalled (docs/jobs.md, "Watchdog"). */
  turns: z.array(z.strictObject({ kind: z.enum(['work', 'retry', 'wrap_up']), turn_id: z.string(), outcome: z.enum(['done', 'error', 'aborted', 'not_started']), steps: z.number().int().nonnegative() })),
  limits_hit: z.array(jobLimitHitSchema),
  started_at: z.string(),
  finished_at: z.string(),
  duration_ms: z.number().int().nonnegative(),
  /**
   * The escalation notifications sent while the job ran, with their outcome. The `job.finished`
   * delivery of this report is after it: its outcome is the aftercare workflow's (docs/jobs.md).
   */
  notifications: z.array(jobNotificationOutcomeSchema).optional(),
  /** The watchdog's diagnosis of each stalled turn (docs/jobs.md, "Watchdog"); absent when none stalled. */
  stalls: z.array(z.string()).optional(),
  /**
   * Each time the job, waiting in `needs_human`, was resumed by a person: who, when (ISO 8601), the
   * call they decided and how, and their message to the model. Absent when it never was.
   */
  resumed: z.array(z.strictObject({ by: z.string(), at: z.string(), tool_call_id: z.string(), tool: z.string(), decision: z.enum(['allow', 'deny']), message: z.string().optional() })).optional(),
});
export type JobReport = z.infer<typeof jobReportSchema>;
