import { ErrorCode, StrandError } from '../../../contracts/errors';
import type { ChatRequest, HistoryItem } from '../../../contracts/ws-rpc';
import type { SessionRef, SessionService } from '../sessions/session-service';

/** The session a chat runs in, the model it runs on, and what the client should be told about it. */
export interface ChatTarget {
  /** The session, opened once for the chat's start: its prompt and event read go through it too. */
  session: SessionRef;
  sessionId: string;
  model: string;
  notices: string[];
}

/**
 * Makes the session a chat names ready: created (with the client's workspace as its project and its
 * model when that can run here) and seeded with the client's history if it is new; an existing
 * session keeps its conversation and project and only follows the client's model choice. A model
 * whose provider is not configured does not fail the chat: it runs on the session's model, and a
 * notice says so. Sessions, models and history all go through SessionService; the session is read
 * and its owner checked once (by `ensure`), and the reference it returns serves the whole start.
 */
export async function prepareChatSession(sessions: SessionService, request: ChatRequest, sessionId: string, principal: string | undefined): Promise<ChatTarget> {
  const notices: string[] = [];
  const wanted = request.model.trim();
  let ref: string | undefined;
  if (wanted) {
    try {
      ref = sessions.models.resolve(wanted).ref;
    } catch (err) {
      if (!(err instanceof StrandError) || err.code !== ErrorCode.UNKNOWN_MODEL) throw err;
      notices.push(`model ${wanted} cannot run here (${err.message})`);
    }
  }
  const { session, created } = await sessions.ensure(sessionId, {
    // The reference client omits the workspace to mean "where the server runs".
    project_path: request.workspace?.trim() || process.cwd(),
    ...(ref ? { model: ref } : {}),
    ...(principal ? { owner: principal } : {}),
  });
  if (created) await sessions.history.seed(session, historyToSeed(request.history, request.message));
  let model = (await session.describe()).model;
  if (!created && ref && ref !== model) model = (await session.updateSettings({ model: ref })).model;
  if (notices.length > 0) notices[0] = `${notices[0]}: running on ${model}`;
  return { session, sessionId, model, notices };
}

/**
 * The client's history as messages to seed: user and assistant text only (status rows are UI). The
 * reference client already appends the message it is sending; the turn records that one itself.
 */
export function historyToSeed(history: HistoryItem[], message: string): Array<{ role: 'user' | 'assistant'; text: string; timestamp?: number }> {
  const items = history.filter((h): h is HistoryItem & { role: 'user' | 'assistant' } => (h.role === 'user' || h.role === 'assistant') && h.kind !== 'status' && h.content.trim() !== '');
  const last = items[items.length - 1];
  if (last && last.role === 'user' && last.content === message) items.pop();
  return items.map((h) => {
    const ts = Date.parse(h.timestamp);
    return { role: h.role, text: h.content, ...(Number.isFinite(ts) ? { timestamp: ts } : {}) };
  });
}
