import { ApplicationFailure } from '@temporalio/workflow';
import { FailureType } from '../../contracts/failures';
import { jobSessionRefusal } from '../../contracts/job-session';
import type { SessionAccess } from '../../contracts/session-workflow';

/**
 * The check a `checkedPrompt` passes before its prompt is validated as any prompt: the same the
 * gateway makes on a store record (services/gateway/sessions/session-service.ts, session-ref.ts),
 * against the access facts the run was started with, so a prompt to a running session needs no store
 * read first (docs/architecture.md, "A prompt without a store read"). Synchronous (a validator): a refused
 * prompt never reaches history.
 * - another principal's session answers exactly as an unknown one: SESSION_NOT_FOUND `no session <id>`;
 * - a job's session: JOB_SESSION, the gateway's message (it reads the store then, and may steer the job);
 * - a run started without the facts (by an older gateway): ACCESS_UNKNOWN, the gateway reads the store.
 */
export function checkPromptAccess(sessionId: string, access: SessionAccess | undefined, principal: unknown): void {
  if (access === undefined) throw ApplicationFailure.nonRetryable(`session ${sessionId}'s run was started without its access facts`, FailureType.ACCESS_UNKNOWN);
  if (principal !== undefined && typeof principal !== 'string') throw ApplicationFailure.nonRetryable('principal must be a string', FailureType.INVALID_COMMAND);
  if (principal !== undefined && access.owner !== undefined && access.owner !== principal) {
    throw ApplicationFailure.nonRetryable(`no session ${sessionId}`, FailureType.SESSION_NOT_FOUND);
  }
  if (access.job_id !== undefined) throw ApplicationFailure.nonRetryable(jobSessionRefusal(sessionId, access.job_id), FailureType.JOB_SESSION);
}
