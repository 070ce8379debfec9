import { randomUUID } from 'node:crypto';
import {
  QueryRejectedError,
  WithStartWorkflowOperation,
  WorkflowUpdateFailedError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure, TypedSearchAttributes, WorkflowNotFoundError, type UpdateDefinition } from '@temporalio/common';
import { checkpointsUpdate, type CheckpointCommand, type CheckpointCommandResult } from '../../../contracts/checkpoints';
import { ErrorCode, StrandError } from '../../../contracts/errors';
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
import { SESSION_WORKFLOW_TYPE, sessionWorkflowId } from '../../../contracts/workflow-ids';
import { describeJob, listRunningJobs, type TurnJob } from './jobs';
import { withTaskRetry } from './with-task-retry';
import { translateFailure } from './translate-failure';
import { searchAttributeKeys as saKeys } from '../../../contracts/search-attributes';
import type { TemporalLink } from './temporal-link';

/** Reads and commands to a running session answer within this, or the call fails as UNAVAILABLE. */
const QUERY_DEADLINE_MS = 5_000;

const { sessionId: saSession, projectPath: saProject, model: saModel, phase: saPhase, owner: saOwner } = saKeys;

/** What the gateway knows of a session when it may have to (re)start its workflow. */
export interface SessionStartInfo {
  session_id: string;
  project_path: string;
  model: string;
  owner?: string;
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
    const client = this.temporal.current;
    if (!client) throw new StrandError(ErrorCode.UNAVAILABLE, this.temporal.unavailableReason);
    return client;
  }

  private startOperation(info: SessionStartInfo) {
    return new WithStartWorkflowOperation(SESSION_WORKFLOW_TYPE, {
      workflowId: sessionWorkflowId(info.session_id),
      taskQueue: this.taskQueue,
      args: [freshSessionInput(info.session_id, this.idleTimeoutMs)],
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

  /** Lists a session's file checkpoints, or reverts / redoes them (idle sessions only), waking a dormant one. */
  async checkpoints(info: SessionStartInfo, cmd: CheckpointCommand, requestId?: string): Promise<CheckpointCommandResult> {
    return this.updateWithStart(info, checkpointsUpdate, cmd, requestId);
  }

  /**
   * One update with start: the update id is the client's request id (a fresh one without), so the
   * command is applied once however often it is sent; a refusal because the workflow's last task
   * failed is sent again under that id (with-task-retry.ts).
   */
  private async updateWithStart<Ret, Arg>(info: SessionStartInfo, update: UpdateDefinition<Ret, [Arg]>, arg: Arg, requestId: string | undefined): Promise<Ret> {
    const updateId = requestId ?? randomUUID();
    try {
      return await withTaskRetry(() => this.client().workflow.executeUpdateWithStart(update, { args: [arg], updateId, startWorkflowOperation: this.startOperation(info) }));
    } catch (err) {
      throw translateFailure(err);
    }
  }

  /** Stops the running user command, if any. */
  async abortUserCommand(sessionId: string, requestId?: string): Promise<{ stopped: boolean }> {
    return this.onRunning(sessionId, { stopped: false }, (h) => h.executeUpdate(abortUserCommandUpdate, { args: [], updateId: requestId ?? randomUUID() }));
  }

  /**
   * Stops turn `turnId`, or (none given) the running turn, else the next queued one, even when its
   * child workflow has not started yet (a session whose workflow is not running has none).
   */
  async abort(sessionId: string, requestId?: string, turnId?: string): Promise<AbortResult> {
    return this.onRunning(sessionId, { aborted: false, turn_id: null }, (h) => h.executeUpdate(abortUpdate, { args: [turnId ? { turn_id: turnId } : {}], updateId: requestId ?? randomUUID() }));
  }

  /** Ends a turn that waits to retry its provider call, with that error. */
  async abortRetry(sessionId: string, requestId?: string): Promise<{ cancelled: boolean; turn_id: string | null }> {
    return this.onRunning(sessionId, { cancelled: false, turn_id: null }, (h) => h.executeUpdate(abortRetryUpdate, { args: [], updateId: requestId ?? randomUUID() }));
  }

  /** Asks the running turn to stop at its next step boundary; `pending` is false when none runs. */
  async interrupt(sessionId: string, requestId?: string, turnId?: string): Promise<{ pending: boolean; turn_id: string | null }> {
    return this.onRunning(sessionId, { pending: false, turn_id: null }, (h) => h.executeUpdate(interruptUpdate, { args: [turnId ? { turn_id: turnId } : {}], updateId: requestId ?? randomUUID() }));
  }

  async steer(sessionId: string, cmd: SteerCommand, requestId?: string): Promise<{ delivered: boolean; turn_id: string | null }> {
    return this.onRunning(sessionId, { delivered: false, turn_id: null }, (h) => h.executeUpdate(steerUpdate, { args: [cmd], updateId: requestId ?? randomUUID() }));
  }

  /** Answers a pending tool approval; an unknown or already answered call is INVALID_TOOL_CALL. */
  async approval(sessionId: string, cmd: ApprovalCommand, requestId?: string): Promise<{ resolved: boolean }> {
    const result = await this.onRunning(sessionId, undefined, (h) => h.executeUpdate(approvalUpdate, { args: [cmd], updateId: requestId ?? randomUUID() }));
    if (!result) throw new StrandError(ErrorCode.INVALID_TOOL_CALL, `no tool call ${cmd.tool_call_id} is waiting for approval`);
    return result;
  }

  async clearQueue(sessionId: string, requestId?: string): Promise<{ cleared: number }> {
    return this.onRunning(sessionId, { cleared: 0 }, (h) => h.executeUpdate(clearQueueUpdate, { args: [], updateId: requestId ?? randomUUID() }));
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
    await this.onRunning(sessionId, undefined, (h) => h.terminate(reason).then(() => undefined));
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
   * The running workflow's state, or undefined when no workflow runs for the session (it is idle).
   * Temporal being unreachable is an error (UNAVAILABLE), never "idle".
   */
  async state(sessionId: string): Promise<SessionSnapshot | undefined> {
    return this.onRunning(sessionId, undefined, (h) => h.query(sessionStateQuery));
  }

  /** Runs `fn` on the session's open workflow; `whenNotRunning` when there is none. */
  private async onRunning<T>(sessionId: string, whenNotRunning: T, fn: (h: ReturnType<Client['workflow']['getHandle']>) => Promise<T>): Promise<T> {
    const handle = this.client().workflow.getHandle(sessionWorkflowId(sessionId));
    try {
      return await this.temporal.withDeadline(QUERY_DEADLINE_MS, () => fn(handle));
    } catch (err) {
      if (err instanceof WorkflowNotFoundError || err instanceof QueryRejectedError) return whenNotRunning;
      // Refused by its validator because nothing it concerns runs (it never reached history).
      if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure && err.cause.type === NOTHING_RUNNING) return whenNotRunning;
      if (err instanceof Error && /workflow execution already completed/i.test(err.message)) return whenNotRunning;
      throw translateFailure(err);
    }
  }
}
