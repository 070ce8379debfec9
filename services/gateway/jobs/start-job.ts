import { createHash, randomBytes } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import type { JobStarted } from '../../../contracts/job-http';
import { jobIdSchema, jobSpecSchema, type JobSpec, type JobSpecInput } from '../../../contracts/job-spec';
import { JOB_WORKFLOW_TYPE, jobSessionId, jobWorkflowId, type JobWorkflowInput } from '../../../contracts/job-workflow';
import { searchAttributeKeys } from '../../../contracts/search-attributes';
import { jobMemoOf, readJobMemo } from './job-memo';

export interface StartJobOptions {
  client: Client;
  /** The task queue the worker polls (STRAND_TASK_QUEUE). */
  taskQueue: string;
  /** The job's id; a fresh one without. The same id twice starts one job. */
  jobId?: string;
  /** What started it, for the Temporal Web UI's summary (`http`, `schedule nightly`, …). */
  origin?: string;
}

/** `20261129-3fa9c2d1`: a date to sort by eye and 32 random bits. */
export function freshJobId(now = new Date()): string {
  return `${now.toISOString().slice(0, 10).replace(/-/g, '')}-${randomBytes(4).toString('hex')}`;
}

/**
 * A job id from an `Idempotency-Key`: the key itself when it is a valid job id (a lowercase UUID is),
 * else `k-` and a digest of it (keys are the client's own strings: a UUID in capitals, a long one).
 */
export function jobIdForKey(key: string): string {
  return jobIdSchema.safeParse(key).success ? key : `k-${createHash('sha256').update(key).digest('hex').slice(0, 32)}`;
}

/** The spec as the workflow will read it (defaults filled), in one canonical text: equal specs hash equal. */
export function specDigest(spec: JobSpec): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(canonical) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])])) : v;
  return createHash('sha256').update(JSON.stringify(canonical(spec))).digest('hex');
}

const jobUrls = (jobId: string) => ({ status_url: `/api/jobs/${jobId}`, report_url: `/api/jobs/${jobId}/report` });

/**
 * Starts one unattended job (`jobWorkflow`, id `job:<id>`) owned by `owner`, and answers only once
 * Temporal has it. The workflow id is the dedup: an id whose job exists (running or ended, the id is
 * never reused) answers that job when its spec and owner are the same (`started: false`), and
 * JOB_EXISTS otherwise. The HTTP route, schedules and hooks all start jobs here.
 */
export async function startJob(spec: JobSpecInput, owner: string | undefined, opts: StartJobOptions): Promise<{ started: boolean; job: JobStarted }> {
  const parsed = jobSpecSchema.parse(spec);
  const job_id = opts.jobId ?? freshJobId();
  const digest = specDigest(parsed);
  const input: JobWorkflowInput = { job_id, spec: parsed, ...(owner !== undefined ? { owner } : {}) };
  const job = { job_id, session_id: jobSessionId(job_id), ...jobUrls(job_id) };
  try {
    await opts.client.workflow.start(JOB_WORKFLOW_TYPE, {
      workflowId: jobWorkflowId(job_id),
      taskQueue: opts.taskQueue,
      args: [input],
      // An id once used (by a job running or ended) is never started again: it names a branch and a folder.
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      memo: { ...jobMemoOf(parsed, owner, digest) },
      staticSummary: `job ${job_id}${opts.origin ? ` (${opts.origin})` : ''}: ${parsed.task.prompt.split('\n')[0]!.slice(0, 80)}`,
      ...(owner !== undefined ? { typedSearchAttributes: new TypedSearchAttributes([{ key: searchAttributeKeys.owner, value: owner }]) } : {}),
    });
    return { started: true, job };
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  const existing = readJobMemo((await opts.client.workflow.getHandle(jobWorkflowId(job_id)).describe()).memo);
  if (existing?.spec_sha256 === digest && existing.owner === owner) return { started: false, job };
  throw new StrandError(ErrorCode.JOB_EXISTS, `job ${job_id} exists with another spec${existing?.owner !== owner ? ' or owner' : ''}: choose another id, or send the same spec`, { job_id });
}
