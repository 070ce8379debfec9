import { randomUUID } from 'node:crypto';
import {
  QueryRejectedError,
  WithStartWorkflowOperation,
  WorkflowUpdateFailedError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure, TypedSearchAttributes, WorkflowNotFoundError, type UpdateDefinition } from '@temporalio/common';
import { checkpointsUpdate, type CheckpointCommand, type CheckpointCommandResult, type CheckpointSummary } from '../../../contracts/checkpoints';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import { FailureType } from '../../../contracts/failures';
import {
  abortRetryUpdate,
  abortUpdate,
  approvalUpdate,
  type ApprovalCommand,
  clearQueueUpdate,
  compactUpdate,
  freshSessionInput,
  NOTHING_RUNNING,
  promptUpdate,
  checkedPromptUpdate,
  type CheckedPromptCommand,
  sessionStateQuery,
  setSettingsUpdate,
  steerUpdate,
  interruptUpdate,
  userCommandUpdate,
  abortUserCommandUpdate,
  type UserCommand,
  type UserCommandResult,
  type SettingsChange,
  type AbortResult,
  type PromptAccepted,
  type PromptCommand,
  type SessionSnapshot,
  type SteerCommand,
} from '../../../contracts/session-workflow';
import type { SessionSettings } from '../../../contracts/session-settings';
import { CHECKPOINT_LIST_WORKFLOW_TYPE, checkpointListWorkflowId, SESSION_WORKFLOW_TYPE, sessionWorkflowId } from '../../../contracts/workflow-ids';
import { jobProgressQuery, jobSteerUpdate, jobWorkflowId, type JobSteered } from '../../../contracts/job-workflow';
import { describeJob, listRunningJobs, type TurnJob } from './jobs';
import { COMMAND_PATIENCE, sendCommand } from './patient-update';
import { translateFailure } from './translate-failure';
import { describeSession, listSessions, type SessionRead } from './session-views';
import { liveViewOf, type SessionLiveView } from '../../../contracts/session-live-view';
import { searchAttributeKeys as saKeys } from '../../../contracts/search-attributes';
import { connectedClient, type TemporalLink } from './temporal-link';

/** Reads (a describe, a visibility query, the fallback query) answer within this, or the read fails as UNAVAILABLE. */
const QUERY_DEADLINE_MS = 5_000;

const { sessionId: saSession, projectPath: saProject, model: saModel, phase: saPhase, owner: saOwner } = saKeys;

/** What the gateway knows of a session when it may have to (re)start its workflow. */
export interface SessionStartInfo {
  session_id: string;
  project_path: string;
  model: string;
  owner?: string;
  /** The job the session belongs to (docs/jobs.md), if it is a job's. */
  job_id?: string;
}

/**
 * Sends commands to session workflows and reads their state. Every command is an update sent with
 * update-with-start (a session whose workflow idled out comes back on its next command) whose update
 * id is the client's request id, so a retried command is applied once. The workflow's input is the
 * session id only: the workflow reads the rest from the store.
 */
export class SessionCommands {
  constructor(
    private readonly temporal: TemporalLink,
    private readonly taskQueue: string,
    private readonly idleTimeoutMs?: number,
  ) {}

  private client(): Client {
    return connectedClient(this.temporal);
  }

  private startOperation(info: SessionStartInfo) {
    return new WithStartWorkflowOperation(SESSION_WORKFLOW_TYPE, {
      workflowId: sessionWorkflowId(info.session_id),
      taskQueue: this.taskQueue,
      // The record's access facts ride along, so the run can check a prompt sent without a store read.
      args: [freshSessionInput(info.session_id, this.idleTimeoutMs, { ...(info.owner ? { owner: info.owner } : {}), ...(info.job_id ? { job_id: info.job_id } : {}) })],
      workflowIdConflictPolicy: 'USE_EXISTING',
      staticSummary: `session ${info.session_id} · ${info.project_path}`,
      typedSearchAttributes: new TypedSearchAttributes([
        { key: saSession, value: info.session_id },
        { key: saProject, value: info.project_path },
        { key: saModel, value: info.model },
        { key: saPhase, value: 'idle' },
        ...(info.owner ? [{ key: saOwner, value: info.owner }] : []),
      ]),
    });
  }

  /** Starts a turn (or queues it, or answers a retried request id with its turn). */
  async prompt(info: SessionStartInfo, prompt: PromptCommand): Promise<PromptAccepted> {
    return this.updateWithStart(info, promptUpdate, prompt, prompt.request_id);
  }

  /**
   * A prompt to the session's running workflow, checked there (`checkedPrompt`: the caller's
   * principal against the owner the run was started with), without a store read first. Undefined
   * when the workflow cannot answer it and the caller must read the store and `prompt` as before: no
   * run is open (dormant, deleted, never started), the run was started without its access facts or
   * by a worker that predates the check (no handler: never ignored), or the session is a job's (the
   * store read decides between steering the job and JOB_SESSION). Another principal's session is
   * SESSION_NOT_FOUND, as the store read answers it.
   */
  async promptRunning(sessionId: string, principal: string | undefined, prompt: PromptCommand): Promise<PromptAccepted | undefined> {
    // The caller's own update id: Temporal answers a repeated update id with its first outcome before
    // any validator runs, so a bare request id would let another principal replay the owner's and
    // learn its turn. The workflow still knows the request id (its own record of seen ids answers
    // a repeat sent either way with its turn).
    const updateId = `checked:${principal ?? ''}:${prompt.request_id ?? randomUUID()}`;
    const handle = this.client().workflow.getHandle(sessionWorkflowId(sessionId));
    const arg: CheckedPromptCommand = { ...prompt, ...(principal !== undefined ? { principal } : {}) };
    try {
      return await this.patiently(updateId, () => handle.executeUpdate(checkedPromptUpdate, { args: [arg], updateId }));
    } catch (err) {
      if (readFirst(err)) return undefined;
      throw translateFailure(err);
    }
  }

  /** Changes settings, waking a dormant session if need be (settings live with its workflow). */
  async setSettings(info: SessionStartInfo, change: SettingsChange, requestId?: string): Promise<SessionSettings> {
    return this.updateWithStart(info, setSettingsUpdate, change, requestId);
  }

  /** Compacts an idle session now (SESSION_BUSY while a turn runs). */
  async compact(info: SessionStartInfo, instructions: string | undefined, requestId?: string) {
    return this.updateWithStart(info, compactUpdate, instructions ? { instructions } : {}, requestId);
  }

  /** Runs a user's shell command in the session's workspace (idle sessions only), waking a dormant one. */
  async userCommand(info: SessionStartInfo, cmd: UserCommand, requestId?: string): Promise<UserCommandResult> {
    return this.updateWithStart(info, userCommandUpdate, cmd, requestId);
  }

  /**
   * A session's file checkpoints, read by a workflow of its own (workflows/checkpoint-list.ts): the
   * session's workflow is neither woken nor written to. A worker reads them (they are on its disk).
   */
  async listCheckpoints(sessionId: string): Promise<{ checkpoints: CheckpointSummary[] }> {
    try {
      return await this.temporal.withDeadline(COMMAND_PATIENCE.attemptMs, () =>
        this.client().workflow.execute(CHECKPOINT_LIST_WORKFLOW_TYPE, {
          workflowId: checkpointListWorkflowId(sessionId, randomUUID()),
          taskQueue: this.taskQueue,
          args: [{ session_id: sessionId }],
          workflowExecutionTimeout: '2 minutes',
          staticSummary: `checkpoints of session ${sessionId}`,
        }),
      );
    } catch (err) {
      throw translateFailure(err);
    }
  }

  /** Reverts or redoes a session's file checkpoints (idle sessions only), waking a dormant one. */
  async checkpoints(info: SessionStartInfo, cmd: CheckpointCommand, requestId?: string): Promise<CheckpointCommandResult> {
    return this.updateWithStart(info, checkpointsUpdate, cmd, requestId);
  }

  /**
   * One update with start: the update id is the client's request id (a fresh one without), so the
   * command is applied once however often it is sent; a refusal because the workflow's last task
   * failed is sent again under that id (patient-update.ts).
   */
  private async updateWithStart<Ret, Arg>(info: SessionStartInfo, update: UpdateDefinition<Ret, [Arg]>, arg: Arg, requestId: string | undefined): Promise<Ret> {
    const updateId = requestId ?? randomUUID();
    try {
      return await this.patiently(updateId, () => this.client().workflow.executeUpdateWithStart(update, { args: [arg], updateId, startWorkflowOperation: this.startOperation(info) }));
    } catch (err) {
      throw translateFailure(err);
    }
  }

  /** Stops the running user command, if any. */
  async abortUserCommand(sessionId: string, requestId?: string): Promise<{ stopped: boolean }> {
    return this.updateRunning(sessionId, { stopped: false }, abortUserCommandUpdate, [], requestId);
  }

  /**
   * Stops turn `turnId`, or (none given) the running turn, else the next queued one, even when its
   * child workflow has not started yet (a session whose workflow is not running has none).
   */
  async abort(sessionId: string, requestId?: string, turnId?: string): Promise<AbortResult> {
    return this.updateRunning(sessionId, { aborted: false, turn_id: null }, abortUpdate, [turnId ? { turn_id: turnId } : {}], requestId);
  }

  /** Ends a turn that waits to retry its provider call, with that error. */
  async abortRetry(sessionId: string, requestId?: string): Promise<{ cancelled: boolean; turn_id: string | null }> {
    return this.updateRunning(sessionId, { cancelled: false, turn_id: null }, abortRetryUpdate, [], requestId);
  }

  /** Asks the running turn to stop at its next step boundary; `pending` is false when none runs. */
  async interrupt(sessionId: string, requestId?: string, turnId?: string): Promise<{ pending: boolean; turn_id: string | null }> {
    return this.updateRunning(sessionId, { pending: false, turn_id: null }, interruptUpdate, [turnId ? { turn_id: turnId } : {}], requestId);
  }

  async steer(sessionId: string, cmd: SteerCommand, requestId?: string): Promise<{ delivered: boolean; turn_id: string | null }> {
    return this.updateRunning(sessionId, { delivered: false, turn_id: null }, steerUpdate, [cmd], requestId);
  }

  /** Answers a pending tool approval; an unknown or already answered call is INVALID_TOOL_CALL. */
  async approval(sessionId: string, cmd: ApprovalCommand, requestId?: string): Promise<{ resolved: boolean }> {
    const result = await this.updateRunning(sessionId, undefined, approvalUpdate, [cmd], requestId);
    if (!result) throw new StrandError(ErrorCode.INVALID_TOOL_CALL, `no tool call ${cmd.tool_call_id} is waiting for approval`);
    return result;
  }

  async clearQueue(sessionId: string, requestId?: string): Promise<{ cleared: number }> {
    return this.updateRunning(sessionId, { cleared: 0 }, clearQueueUpdate, [], requestId);
  }

  /** Makes sure the session's workflow runs (a dormant session wakes up with its settings). */
  async ensureRunning(info: SessionStartInfo): Promise<void> {
    const op = this.startOperation(info);
    try {
      await this.temporal.withDeadline(QUERY_DEADLINE_MS, () => this.client().workflow.start(SESSION_WORKFLOW_TYPE, { ...op.options, workflowIdConflictPolicy: 'USE_EXISTING' }));
    } catch (err) {
      throw translateFailure(err);
    }
  }

  /** Ends the session's workflow (its turn was aborted before): used when the session is deleted. */
  async close(sessionId: string, reason: string): Promise<void> {
    await this.onRunning(sessionId, undefined, (h) => this.temporal.withDeadline(QUERY_DEADLINE_MS, () => h.terminate(reason)).then(() => undefined));
  }

  /** Running turns across sessions (only the principal's when given). */
  async runningJobs(owner?: string): Promise<TurnJob[]> {
    try {
      return await this.temporal.withDeadline(QUERY_DEADLINE_MS, () => listRunningJobs(this.client(), owner));
    } catch (err) {
      throw translateFailure(err);
    }
  }

  async job(jobId: string): Promise<TurnJob | undefined> {
    try {
      return await this.temporal.withDeadline(QUERY_DEADLINE_MS, () => describeJob(this.client(), jobId));
    } catch (err) {
      throw translateFailure(err);
    }
  }

  /**
   * The running workflow's state by a query (a worker must answer it), or undefined when no workflow
   * runs for the session. The fallback of `live` for a run that keeps no view in its memo.
   */
  private async state(sessionId: string, deadlineMs = QUERY_DEADLINE_MS): Promise<SessionSnapshot | undefined> {
    return this.onRunning(sessionId, undefined, (h) => this.temporal.withDeadline(deadlineMs, () => h.query(sessionStateQuery)));
  }

  /**
   * The view as of every event in the workflow's history, by a query: a worker answers it once the
   * workflow task in flight has completed. The memo is written when that task completes, but what the
   * task's local activities publish (a `session.state` the session sends itself) reaches clients a moment
   * before: a check of what such an event announced asks here.
   */
  async queried(sessionId: string, deadlineMs?: number): Promise<SessionLiveView | undefined> {
    const snapshot = await this.state(sessionId, deadlineMs);
    return snapshot ? liveViewOf(snapshot) : undefined;
  }

  /**
   * Where a job's running turn begins on its session's stream (docs/jobs.md): a job's session has no
   * session workflow, the job announces its turns (`jobProgress`'s `turn_start_seq`). Undefined between
   * turns, once the job ended, for a job started before it announced them, or when no worker answered.
   */
  async jobTurnStart(jobId: string, deadlineMs = QUERY_DEADLINE_MS): Promise<number | undefined> {
    try {
      const view = await this.temporal.withDeadline(deadlineMs, () => this.client().workflow.getHandle(jobWorkflowId(jobId)).query(jobProgressQuery));
      return view.turn_id && view.turn_start_seq ? view.turn_start_seq : undefined;
    } catch {
      return undefined;
    }
  }

  /** Steers a job's running turn (docs/jobs.md); `delivered: false` between turns or once the job has ended. */
  async jobSteer(jobId: string, text: string, requestId?: string): Promise<JobSteered> {
    const updateId = requestId ?? randomUUID();
    try {
      return await this.patiently(updateId, () => this.client().workflow.getHandle(jobWorkflowId(jobId)).executeUpdate(jobSteerUpdate, { args: [{ text }], updateId }));
    } catch (err) {
      if (err instanceof WorkflowNotFoundError || (err instanceof Error && /workflow execution already completed/i.test(err.message))) return { delivered: false, turn_id: null };
      throw translateFailure(err);
    }
  }

  /**
   * What readers see of a running session, from Temporal's server alone (session-views.ts): one
   * describe of its workflow, no worker involved; undefined when no run is open (dormant). A run that
   * keeps no view yet is queried. Temporal being unreachable is UNAVAILABLE, never "dormant".
   */
  async live(sessionId: string): Promise<SessionLiveView | undefined> {
    let read: SessionRead;
    try {
      read = await this.temporal.withDeadline(QUERY_DEADLINE_MS, () => describeSession(this.client(), sessionId));
    } catch (err) {
      throw translateFailure(err);
    }
    if (read.status === 'active') return read.view;
    if (read.status !== 'needsQuery') return undefined;
    const snapshot = await this.state(sessionId);
    return snapshot ? liveViewOf(snapshot) : undefined;
  }

  /**
   * Many sessions in one visibility query. Never fails: a session that could not be read (Temporal not
   * answering, a run without a view whose query failed) is `unknown`, with the reason.
   */
  async liveMany(sessionIds: readonly string[]): Promise<Map<string, LiveRead>> {
    let reads: Map<string, SessionRead>;
    try {
      reads = await this.temporal.withDeadline(QUERY_DEADLINE_MS, () => listSessions(this.client(), sessionIds));
    } catch (err) {
      const reason = messageOf(translateFailure(err));
      return new Map(sessionIds.map((id) => [id, { status: 'unknown', reason }]));
    }
    const out = new Map<string, LiveRead>();
    await Promise.all(
      sessionIds.map(async (id) => {
        const read = reads.get(id) ?? { status: 'dormant' };
        if (read.status !== 'needsQuery') return void out.set(id, read);
        try {
          const view = await this.live(id);
          out.set(id, view ? { status: 'active', view } : { status: 'dormant' });
        } catch (err) {
          out.set(id, { status: 'unknown', reason: messageOf(err) });
        }
      }),
    );
    return out;
  }

  /** An update to the open run, sent patiently under one id; `whenNotRunning` when no run is open or nothing it concerns runs. */
  private updateRunning<Ret, Args extends unknown[]>(sessionId: string, whenNotRunning: Ret, update: UpdateDefinition<Ret, Args>, args: Args, requestId: string | undefined): Promise<Ret> {
    const updateId = requestId ?? randomUUID();
    // The SDK's overloads split updates with and without arguments; one call serves both here.
    const execute = (h: WorkflowHandleOf) => (h.executeUpdate as (def: UpdateDefinition<Ret, Args>, options: { args: Args; updateId: string }) => Promise<Ret>).call(h, update, { args, updateId });
    return this.onRunning(sessionId, whenNotRunning, (h) => this.patiently(updateId, () => execute(h)));
  }

  /** Sends an update's call under one id until answered or the command patience is spent (patient-update.ts). */
  private patiently<T>(updateId: string, call: () => Promise<T>): Promise<T> {
    return sendCommand(this.temporal, updateId, call);
  }

  /** Runs `fn` on the session's open workflow; `whenNotRunning` when there is none. */
  private async onRunning<T>(sessionId: string, whenNotRunning: T, fn: (h: WorkflowHandleOf) => Promise<T>): Promise<T> {
    const handle = this.client().workflow.getHandle(sessionWorkflowId(sessionId));
    try {
      return await fn(handle);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError || err instanceof QueryRejectedError) return whenNotRunning;
      // Refused by its validator because nothing it concerns runs (it never reached history).
      if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure && err.cause.type === NOTHING_RUNNING) return whenNotRunning;
      if (err instanceof Error && /workflow execution already completed/i.test(err.message)) return whenNotRunning;
      throw translateFailure(err);
    }
  }
}

/** The refusals of a `checkedPrompt` after which the store is read and the prompt sent as before (promptRunning). */
function readFirst(err: unknown): boolean {
  if (err instanceof WorkflowNotFoundError || (err instanceof Error && /workflow execution already completed/i.test(err.message))) return true;
  if (!(err instanceof WorkflowUpdateFailedError) || !(err.cause instanceof ApplicationFailure)) return false;
  const { type, message } = err.cause;
  return type === FailureType.ACCESS_UNKNOWN || type === FailureType.JOB_SESSION || /no registered handler for update/i.test(message);
}

type WorkflowHandleOf = ReturnType<Client['workflow']['getHandle']>;

/** A session in a list: its view, dormant, or unknown with why (one session never fails the list). */
export type LiveRead = { status: 'active'; view: SessionLiveView } | { status: 'dormant' } | { status: 'unknown'; reason: string };

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
