import { randomUUID } from 'node:crypto';
import {
  WithStartWorkflowOperation,
  WorkflowUpdateFailedError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure, TypedSearchAttributes, defineSearchAttributeKey } from '@temporalio/common';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import { SEARCH_ATTRIBUTES } from '../../../contracts/task-queues';
import {
  WorkflowFailureType,
  promptUpdate,
  sessionStateQuery,
  sessionWorkflowId,
  type PromptAccepted,
  type PromptInput,
  type SessionSnapshot,
  type SessionWorkflowInput,
} from '../../../contracts/workflow-messages';
import type { TemporalLink } from './temporal-link';

/** The workflow type name; the gateway never imports workflow code, only its registered name. */
const SESSION_WORKFLOW_TYPE = 'sessionWorkflow';

const saSession = defineSearchAttributeKey(SEARCH_ATTRIBUTES.sessionId.name, 'KEYWORD');
const saProject = defineSearchAttributeKey(SEARCH_ATTRIBUTES.projectPath.name, 'KEYWORD');
const saModel = defineSearchAttributeKey(SEARCH_ATTRIBUTES.model.name, 'KEYWORD');

/** What the gateway knows about a session when it starts (or re-creates) its workflow. */
export interface SessionStartInfo {
  session_id: string;
  project_path: string;
  model: string;
  idle_timeout_ms?: number;
}

/** Sends commands to session workflows and reads their state. */
export class SessionCommands {
  constructor(
    private readonly temporal: TemporalLink,
    private readonly taskQueue: string,
  ) {}

  private client(): Client {
    const client = this.temporal.current;
    if (!client) throw new StrandError(ErrorCode.UNAVAILABLE, this.temporal.unavailableReason);
    return client;
  }

  /**
   * Starts a turn with update-with-start: creates the session workflow if it is not running, then
   * sends the prompt update. `request_id` becomes the update id, so a retried request starts one turn.
   */
  async prompt(info: SessionStartInfo, prompt: PromptInput): Promise<PromptAccepted> {
    const input: SessionWorkflowInput = {
      session_id: info.session_id,
      project_path: info.project_path,
      model: info.model,
      ...(info.idle_timeout_ms ? { idle_timeout_ms: info.idle_timeout_ms } : {}),
    };
    const start = new WithStartWorkflowOperation(SESSION_WORKFLOW_TYPE, {
      workflowId: sessionWorkflowId(info.session_id),
      taskQueue: this.taskQueue,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      staticSummary: `session ${info.session_id} · ${info.project_path}`,
      typedSearchAttributes: new TypedSearchAttributes([
        { key: saSession, value: info.session_id },
        { key: saProject, value: info.project_path },
        { key: saModel, value: info.model },
      ]),
    });
    try {
      return await this.client().workflow.executeUpdateWithStart(promptUpdate, {
        args: [prompt],
        updateId: prompt.request_id ?? randomUUID(),
        startWorkflowOperation: start,
      });
    } catch (err) {
      throw translateUpdateError(err);
    }
  }

  /** The running workflow's state, or undefined when no workflow runs for the session (it is idle). */
  async state(sessionId: string): Promise<SessionSnapshot | undefined> {
    try {
      return await this.client().workflow.getHandle(sessionWorkflowId(sessionId)).query(sessionStateQuery);
    } catch (err) {
      if (err instanceof StrandError) throw err;
      const name = (err as Error).name;
      if (name === 'WorkflowNotFoundError' || name === 'QueryNotRegisteredError') return undefined;
      if (/workflow execution already completed|not found/i.test((err as Error).message)) return undefined;
      throw err;
    }
  }
}

/** Maps the validator's and Temporal's failures onto strand error codes. */
function translateUpdateError(err: unknown): unknown {
  if (err instanceof StrandError) return err;
  const cause = err instanceof WorkflowUpdateFailedError ? err.cause : undefined;
  if (cause instanceof ApplicationFailure) {
    if (cause.type === WorkflowFailureType.SESSION_BUSY) return new StrandError(ErrorCode.SESSION_BUSY, cause.message);
    if (cause.type === WorkflowFailureType.INVALID_PROMPT) return new StrandError(ErrorCode.INVALID_REQUEST, cause.message);
  }
  const message = (err as Error)?.message ?? String(err);
  if (/UNAVAILABLE|ECONNREFUSED|deadline/i.test(message)) {
    return new StrandError(ErrorCode.UNAVAILABLE, `Temporal did not answer: ${message}`, undefined, { cause: err });
  }
  return err;
}
