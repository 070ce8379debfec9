import { z } from 'zod';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { jobIdSchema, jobSpecSchema } from './job-spec';
import type { JobReport } from './job-report';
import type { AgentPhase } from './agent-phase';

/**
 * The job workflow's contract (docs/jobs.md): how a job starts, the answer a person gives to an
 * escalated tool call, and what a query of a running job shows. Callers use these names and never
 * import workflow code.
 */

export const JOB_WORKFLOW_TYPE = 'jobWorkflow';

/** One workflow per job. */
export function jobWorkflowId(jobId: string): string {
  return `job:${jobId}`;
}

/** The session a job's turns are recorded in (the store's id; its turns are `session:job-<id>:turn:<n>`). */
export function jobSessionId(jobId: string): string {
  return `job-${jobId}`;
}

export const jobWorkflowInputSchema = z.object({
  job_id: jobIdSchema,
  spec: jobSpecSchema,
  /** The principal who started it (the gateway's caller; none with auth off): its session is theirs. */
  owner: z.string().min(1).max(200).optional(),
  /** The schedule (its name) whose run started this job, when one did (docs/jobs.md, "Schedules"; its search attribute `StrandJobSchedule`). */
  schedule_id: z.string().min(1).max(200).optional(),
});
export type JobWorkflowInput = z.input<typeof jobWorkflowInputSchema>;

/** A person's answer to an escalated call; `by` names them in the report. */
export const escalationAnswerSchema = z.strictObject({
  tool_call_id: z.string().min(1),
  decision: z.enum(['allow', 'deny']),
  by: z.string().min(1).max(200),
  reason: z.string().max(2000).optional(),
});
export type EscalationAnswer = z.infer<typeof escalationAnswerSchema>;

export const escalationAnswerSignal = defineSignal<[EscalationAnswer]>('jobEscalationAnswer');

/**
 * A person resumes a job waiting in `needs_human` (docs/jobs.md, "Resuming a job that needs a
 * person"): their decision for the call it stopped at, and a message the model reads.
 */
export const jobResumeSchema = z.strictObject({
  decision: z.enum(['allow', 'deny']),
  message: z.string().min(1).max(4000).optional(),
  by: z.string().min(1).max(200),
});
export type JobResume = z.infer<typeof jobResumeSchema>;
export const jobResumeSignal = defineSignal<[JobResume]>('jobResume');

/** The job's report as it started waiting for a person (status `needs_human`); null when it does not wait. */
export const jobWaitingReportQuery = defineQuery<JobReport | null>('jobWaitingReport');

/** Where a running job is. */
export interface JobProgressView {
  job_id: string;
  phase: 'preparing' | 'working' | 'wrapping_up' | 'collecting' | 'done';
  session_id: string | null;
  turn_id: string | null;
  step: number | null;
  /**
   * Stream sequence of the running turn's first event on the job's session stream (the `session.state`
   * the job published before it): where a client that starts watching mid-turn reads from. Null
   * between turns; absent for a job started before its turns were announced on the stream.
   */
  turn_start_seq?: number | null;
  /** Calls waiting for a person, with when nobody's answer is taken as the timeout's outcome (ms since the epoch). */
  escalations: Array<{ tool_call_id: string; tool: string; turn_id: string; rule_source: string; expires_at: number }>;
  /**
   * The job reported `needs_human` and waits for a person to resume it: why, the call it stopped at,
   * since when and until when it waits (ms since the epoch). Absent otherwise.
   */
  needs_human?: { reason: string; tool_call_id: string; tool: string; since: number; resume_by: number };
}

export const jobProgressQuery = defineQuery<JobProgressView>('jobProgress');

/**
 * A person's steering of a running job (docs/jobs.md, "Steering a job"): the text reaches the job's
 * running turn as a session's steering reaches its turn (taken after the current step). Not delivered
 * between turns or once the work has stopped.
 */
export const jobSteerUpdate = defineUpdate<JobSteered, [{ text: string }]>('jobSteer');
/** Whether the running turn took the steering; `agent_state`: where that turn was (its last report). */
export interface JobSteered {
  delivered: boolean;
  turn_id: string | null;
  agent_state?: AgentPhase;
}
