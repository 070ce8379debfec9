import { ErrorCode, StrandError } from '../../../contracts/errors';
import type { TaskRecord, TaskState } from '../../../contracts/ws-rpc';
import type { SessionRef, SessionService } from '../sessions/session-service';
import { decodeTaskId } from './task-ids';
import type { TaskRegistry } from './task-registry';

/**
 * How a finished turn ended, read from what the session stored: a last answer that ended normally is
 * `completed`; an answer cut by an abort, or tool calls not run because of one, is `cancelled`;
 * anything else (a provider failure records no answer for its step) is `failed`.
 */
async function finishedState(session: SessionRef, turnId: string): Promise<{ state: TaskState; at?: number }> {
  let last: { role: string; stop_reason?: string; details?: unknown; timestamp?: number } | undefined;
  let cursor: string | undefined;
  do {
    const page = await session.messages({ limit: 500, ...(cursor ? { cursor } : {}) });
    for (const item of page.messages) {
      if (item.message && item.origin?.turn === turnId) last = item.message as typeof last;
    }
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  if (!last) return { state: 'failed' };
  const aborted = last.role === 'function_result' && (last.details as { aborted?: unknown } | undefined)?.aborted === true;
  if (last.stop_reason === 'aborted' || aborted) return { state: 'cancelled', at: last.timestamp };
  if (last.role === 'assistant' && (last.stop_reason === 'end' || last.stop_reason === 'length')) return { state: 'completed', at: last.timestamp };
  return { state: 'failed', at: last.timestamp };
}

const iso = (ms: number | undefined) => new Date(ms ?? Date.now()).toISOString();

/**
 * `task.status`: the turn the task started, from durable state (the session's record, Temporal, the
 * store), so it answers after a gateway or worker restart. A chat this gateway still holds in a
 * connection's queue (no turn yet), or dropped from it, is answered from the local registry. A task of
 * another principal answers as an unknown one: null.
 */
export async function taskRecord(sessions: SessionService, registry: TaskRegistry, taskId: string, principal: string | undefined): Promise<TaskRecord | null> {
  const local = registry.get(taskId, principal);
  const address = decodeTaskId(taskId);
  if (!address) return null;
  let found;
  let session: SessionRef | undefined;
  try {
    session = await sessions.open(address.sessionId, principal);
    found = await session.requestTurn(address.requestKey);
  } catch (err) {
    if (!(err instanceof StrandError && err.code === ErrorCode.SESSION_NOT_FOUND)) throw err;
    found = null;
  }
  if (!found || !session) return local ? { id: taskId, ...local } : null;
  const createdAt = local?.createdAt ?? iso(found.started_at);
  if (found.status !== 'finished') return { id: taskId, state: found.status, createdAt, updatedAt: local?.updatedAt ?? createdAt };
  const ended = await finishedState(session, found.turn_id);
  return { id: taskId, state: ended.state, createdAt, updatedAt: ended.at !== undefined ? iso(ended.at) : (local?.updatedAt ?? createdAt) };
}
