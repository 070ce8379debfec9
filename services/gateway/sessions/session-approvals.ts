import type { StoreClient } from '../../../contracts/session-store/client';
import { entryIds } from '../../../contracts/workflow-ids';
import type { SessionCommands } from '../temporal/session-commands';

type Deps = { store: Pick<StoreClient, 'getMessage'>; commands: Pick<SessionCommands, 'live' | 'queried'> };

/** A tool call waiting for the user's answer, with its arguments. */
export interface PendingApproval {
  tool_call_id: string;
  tool: string;
  params: unknown;
  turn_id: string | null;
}

/**
 * Whether tool call `toolCallId` waits for an answer: the view, else (it may trail a state the session
 * has just published: SessionCommands.queried) the workflow itself. Approvals only wait while a turn
 * runs, so a worker is there to answer.
 */
export async function approvalStillPending(deps: Deps, sessionId: string, toolCallId: string): Promise<boolean> {
  if ((await deps.commands.live(sessionId))?.pending_approvals.some((p) => p.tool_call_id === toolCallId)) return true;
  return !!(await deps.commands.queried(sessionId))?.pending_approvals.some((p) => p.tool_call_id === toolCallId);
}

/** Tool calls waiting for an answer, with their arguments (read from the stored assistant message). */
export async function pendingApprovals(deps: Deps, sessionId: string): Promise<PendingApproval[]> {
  let state = await deps.commands.live(sessionId);
  // The session publishes the state announcing approvals as its workflow task runs, and the view is
  // written when that task completes: while a turn runs, a view that lists none asks the workflow.
  if (state?.active_turn && state.pending_approvals.length === 0) state = (await deps.commands.queried(sessionId)) ?? state;
  if (!state || state.pending_approvals.length === 0 || !state.active_turn || state.step === null) return [];
  const got = await deps.store.getMessage({ session_id: sessionId, entry_id: entryIds.assistant(state.active_turn, state.step) });
  const message = got?.entry.kind === 'message' ? got.entry.message : undefined;
  const content = message?.role === 'assistant' ? message.content : [];
  const turn = state.active_turn;
  return state.pending_approvals.map((p) => {
    const call = content.find((b) => b.type === 'function_call' && b.id === p.tool_call_id);
    return { ...p, params: call && call.type === 'function_call' ? (call.arguments ?? {}) : {}, turn_id: turn };
  });
}
