import { WorkflowFailedError, type Client, type WorkflowExecutionDescription, type WorkflowExecutionInfo } from '@temporalio/client';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import type { JobCancelReply, JobFacts, JobListFilter, JobProgress, JobResumed, JobStarted, JobView, JobViewStatus } from '../../../contracts/job-http';
import { jobIdSchema, type JobSpecInput } from '../../../contracts/job-spec';
import { jobReportSchema, type JobReport } from '../../../contracts/job-report';
import { escalationAnswerSignal, JOB_WORKFLOW_TYPE, jobProgressQuery, jobResumeSignal, jobSessionId, jobWaitingReportQuery, jobWorkflowId } from '../../../contracts/job-workflow';
import type { StoreClient } from '../../../contracts/session-store/client';
import { searchAttributeKeys } from '../../../contracts/search-attributes';
import { connectedClient, type TemporalLink } from '../temporal/temporal-link';
import { translateFailure } from '../temporal/translate-failure';
import { readJobMemo } from './job-memo';
import { jobSessionSpending } from './job-spending';
import { startJob } from './start-job';

/** Temporal reads answer within this, or the request fails as UNAVAILABLE. */
const READ_DEADLINE_MS = 5_000;
/** The progress query needs a worker: a job whose worker is away is shown without it rather than not at all. */
const PROGRESS_DEADLINE_MS = 3_000;

export interface JobServiceDeps {
  temporal: TemporalLink;
  taskQueue: string;
  store: StoreClient;
}

type Described = Pick<WorkflowExecutionInfo, 'workflowId' | 'status' | 'startTime' | 'closeTime' | 'memo'>;

/**
 * Unattended jobs for every front door (docs/jobs.md): start, list, show, report, cancel, answer an
 * escalation. The job workflow owns the job; this reads it (visibility, describe, its progress query,
 * its result) and sends it what a person asks (cancel, the escalation signal). Another principal's
 * job is answered exactly as an unknown one (JOB_NOT_FOUND).
 */
export class JobService {
  constructor(private readonly deps: JobServiceDeps) {}

  private client(): Client {
    return connectedClient(this.deps.temporal);
  }

  private async temporal<T>(fn: (client: Client) => Promise<T>, deadlineMs = READ_DEADLINE_MS): Promise<T> {
    try {
      return await this.deps.temporal.withDeadline(deadlineMs, () => fn(this.client()));
    } catch (err) {
      throw translateFailure(err);
    }
  }

  /** Starts the job (or answers the one this id already names, `started: false`). */
  async start(spec: JobSpecInput, owner: string | undefined, jobId?: string): Promise<{ started: boolean; job: JobStarted }> {
    return this.temporal((client) => startJob(spec, owner, { client, taskQueue: this.deps.taskQueue, origin: 'http', ...(jobId !== undefined ? { jobId } : {}) }), 10_000);
  }

  /**
   * The principal's jobs (everyone's with auth off): the running ones, then the most recently ended.
   * One visibility query: an ended job's status is its `StrandJobStatus` (the report's status, set
   * as the job ends); only a job without it (a namespace without the attribute) has its result read.
   */
  async list(principal: string | undefined, filter: JobListFilter): Promise<JobFacts[]> {
    const clauses = [`WorkflowType = '${JOB_WORKFLOW_TYPE}'`];
    if (principal !== undefined) clauses.push(`${searchAttributeKeys.owner.name} = '${principal.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`);
    if (filter.status === 'running') clauses.push(`ExecutionStatus = 'Running'`);
    // A job waiting for a person to resume it runs, and its StrandJobStatus says needs_human.
    else if (filter.status !== undefined && filter.status !== 'needs_human') clauses.push(`ExecutionStatus != 'Running'`);
    return this.temporal(async (client) => {
      const found: JobFacts[] = [];
      // Visibility answers the running first, then the most recently ended (its own order; the dev
      // server's SQL visibility takes no ORDER BY); an ended job's status is its report's, from its result.
      for await (const w of client.workflow.list({ query: clauses.join(' AND ') })) {
        const facts = this.factsOf(w, listedStatus(w) ?? (await this.outcome(client, w)).status);
        if (filter.status === undefined || facts.status === filter.status) found.push(facts);
        if (found.length >= filter.limit) break;
      }
      return found;
    }, 15_000);
  }

  /** One job: its progress while it runs, its report once it ended. */
  async get(jobId: string, principal: string | undefined): Promise<JobView> {
    const { client, described } = await this.describe(jobId, principal);
    const outcome = await this.temporal(() => this.outcome(client, described));
    const facts = this.factsOf(described, outcome.status);
    const progress = facts.status === 'running' ? await this.progress(client, jobId) : null;
    // Waiting for a person to resume it: `needs_human`, with the report it made as it started waiting.
    if (progress?.needs_human) return { ...facts, status: 'needs_human', progress, report: await this.waitingReport(client, jobId) };
    return { ...facts, progress, report: outcome.report };
  }

  /** The report of a job waiting for a person (docs/jobs.md, "Resuming a job that needs a person"); null when it does not wait. */
  private async waitingReport(client: Client, jobId: string): Promise<JobReport | null> {
    try {
      const report = await this.deps.temporal.withDeadline(PROGRESS_DEADLINE_MS, () => client.workflow.getHandle(jobWorkflowId(jobId)).query(jobWaitingReportQuery));
      return report ? jobReportSchema.parse(report) : null;
    } catch {
      return null;
    }
  }

  /**
   * Resumes a job waiting in `needs_human` with the person's decision for the call it stopped at
   * (signalled with their name). A job not waiting: JOB_NOT_WAITING.
   */
  async resume(jobId: string, body: { decision: 'allow' | 'deny'; message?: string }, principal: string | undefined, by: string): Promise<JobResumed> {
    const { client, described } = await this.describe(jobId, principal);
    const handle = client.workflow.getHandle(jobWorkflowId(jobId));
    const progress = described.status.name === 'RUNNING' ? await this.temporal(() => handle.query(jobProgressQuery), PROGRESS_DEADLINE_MS) : null;
    const waiting = progress?.needs_human;
    if (!waiting) throw new StrandError(ErrorCode.JOB_NOT_WAITING, `job ${jobId} is not waiting for a person to resume it (${progress ? 'it runs' : 'it ended'})`, { job_id: jobId });
    await this.temporal(() => handle.signal(jobResumeSignal, { decision: body.decision, by, ...(body.message ? { message: body.message } : {}) }));
    return { job_id: jobId, tool_call_id: waiting.tool_call_id, decision: body.decision, by };
  }

  /** The report of an ended job; JOB_NOT_FINISHED while it runs. */
  async report(jobId: string, principal: string | undefined): Promise<JobReport> {
    const { client, described } = await this.describe(jobId, principal);
    const outcome = await this.temporal(() => this.outcome(client, described));
    const waiting = outcome.status === 'running' ? await this.waitingReport(client, jobId) : null;
    if (waiting) return waiting;
    if (outcome.status === 'running') throw new StrandError(ErrorCode.JOB_NOT_FINISHED, `job ${jobId} is still running: its report comes when it ends`, { job_id: jobId });
    if (!outcome.report) throw new StrandError(ErrorCode.JOB_NOT_FOUND, `job ${jobId} ended without a report (${outcome.status})`, { job_id: jobId, status: outcome.status });
    return outcome.report;
  }

  /** Asks Temporal to cancel the job; answers once the request is accepted (the report later says `cancelled`). */
  async cancel(jobId: string, principal: string | undefined): Promise<JobCancelReply> {
    const { client, described } = await this.describe(jobId, principal);
    if (described.status.name !== 'RUNNING') return { job_id: jobId, status: 'not_running' };
    await this.temporal(() => client.workflow.getHandle(jobWorkflowId(jobId)).cancel());
    return { job_id: jobId, status: 'cancel_requested' };
  }

  /**
   * A person's answer to an escalated call, signalled to the job with their name. A call the job is
   * not waiting for is INVALID_TOOL_CALL when the job never made it, JOB_ESCALATION_ANSWERED when it
   * did (decided by a person, its timeout or the job).
   */
  async answer(jobId: string, toolCallId: string, answer: { decision: 'allow' | 'deny'; reason?: string }, principal: string | undefined, by: string) {
    const { client, described } = await this.describe(jobId, principal);
    const handle = client.workflow.getHandle(jobWorkflowId(jobId));
    if (described.status.name === 'RUNNING') {
      const progress = await this.temporal(() => handle.query(jobProgressQuery), PROGRESS_DEADLINE_MS);
      if (progress.escalations.some((e) => e.tool_call_id === toolCallId)) {
        await this.temporal(() => handle.signal(escalationAnswerSignal, { tool_call_id: toolCallId, decision: answer.decision, by, ...(answer.reason ? { reason: answer.reason } : {}) }));
        return { job_id: jobId, tool_call_id: toolCallId, decision: answer.decision, by };
      }
    }
    const made = (await jobSessionSpending(this.deps.store, jobSessionId(jobId))).toolCalls.has(toolCallId);
    if (made) throw new StrandError(ErrorCode.JOB_ESCALATION_ANSWERED, `the call ${toolCallId} of job ${jobId} is not waiting for an answer (decided already)`, { job_id: jobId, tool_call_id: toolCallId });
    throw new StrandError(ErrorCode.INVALID_TOOL_CALL, `job ${jobId} has no tool call ${toolCallId}`, { job_id: jobId, tool_call_id: toolCallId });
  }

  /** The job's workflow, owner-checked: an unknown id, a malformed one and another principal's job are all JOB_NOT_FOUND. */
  private async describe(jobId: string, principal: string | undefined): Promise<{ client: Client; described: WorkflowExecutionDescription }> {
    const missing = () => new StrandError(ErrorCode.JOB_NOT_FOUND, `no job ${jobId}`, { job_id: jobId });
    if (!jobIdSchema.safeParse(jobId).success) throw missing();
    const described = await this.temporal(async (client) => {
      try {
        return await client.workflow.getHandle(jobWorkflowId(jobId)).describe();
      } catch (err) {
        if ((err as Error).name === 'WorkflowNotFoundError') return undefined;
        throw err;
      }
    });
    if (!described || described.type !== JOB_WORKFLOW_TYPE) throw missing();
    const owner = readJobMemo(described.memo)?.owner;
    if (principal !== undefined && owner !== undefined && owner !== principal) throw missing();
    return { client: this.client(), described };
  }

  /** How the job's workflow stands: running, or ended with (or without) a report. */
  private async outcome(client: Client, w: Described): Promise<{ status: JobViewStatus; report: JobReport | null }> {
    switch (w.status.name) {
      case 'RUNNING':
        return { status: 'running', report: null };
      case 'TERMINATED':
        return { status: 'terminated', report: null };
      case 'TIMED_OUT':
        return { status: 'timed_out', report: null };
      case 'CANCELLED':
        return { status: 'cancelled', report: null };
    }
    try {
      const report = jobReportSchema.parse(await client.workflow.getHandle(w.workflowId).result());
      return { status: report.status, report };
    } catch (err) {
      // A workflow that failed outright (no report): the job failed.
      if (err instanceof WorkflowFailedError) return { status: 'failed', report: null };
      throw err;
    }
  }

  private async progress(client: Client, jobId: string): Promise<JobProgress | null> {
    let view;
    try {
      view = await this.deps.temporal.withDeadline(PROGRESS_DEADLINE_MS, () => client.workflow.getHandle(jobWorkflowId(jobId)).query(jobProgressQuery));
    } catch {
      // No worker answered in time (or the job ended in between): shown without its progress.
      return null;
    }
    const spent = await jobSessionSpending(this.deps.store, jobSessionId(jobId));
    return { phase: view.phase, turn_id: view.turn_id, step: view.step, steps: spent.steps, cost_usd: spent.cost_usd, tokens: spent.tokens, escalations: view.escalations, ...(view.needs_human ? { needs_human: view.needs_human } : {}) };
  }

  private factsOf(w: Described, status: JobViewStatus): JobFacts {
    const job_id = w.workflowId.replace(/^job:/, '');
    const memo = readJobMemo(w.memo);
    return {
      job_id,
      status,
      session_id: jobSessionId(job_id),
      ...(memo?.owner !== undefined ? { owner: memo.owner } : {}),
      title: memo?.title ?? '',
      project_path: memo?.project_path ?? '',
      model: memo?.model ?? '',
      started_at: w.startTime.getTime(),
      closed_at: w.closeTime ? w.closeTime.getTime() : null,
    };
  }
}

const JOB_STATUSES: ReadonlySet<string> = new Set(['succeeded', 'partial', 'failed', 'cancelled', 'needs_human']);

/**
 * A listed job's status from visibility alone: a completed job's `StrandJobStatus` is its report's,
 * a running one's `needs_human` while it waits for a person. Undefined when visibility cannot say
 * (no attribute, or a workflow that ended otherwise): then its result is read.
 */
function listedStatus(w: WorkflowExecutionInfo): JobViewStatus | undefined {
  const value = w.typedSearchAttributes?.get(searchAttributeKeys.jobStatus);
  if (typeof value !== 'string' || !JOB_STATUSES.has(value)) return w.status.name === 'RUNNING' ? 'running' : undefined;
  if (w.status.name === 'COMPLETED' || (w.status.name === 'RUNNING' && value === 'needs_human')) return value as JobViewStatus;
  return w.status.name === 'RUNNING' ? 'running' : undefined;
}
