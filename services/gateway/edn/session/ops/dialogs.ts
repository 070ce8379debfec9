import type { ApprovalCommand } from '../../../../../contracts/session-workflow';
import { EdnErrorCode, EdnOpError } from '../../protocol';
import type { OpContext, OpHandler } from '../op-context';
import { text } from '../params';

/**
 * Tool approvals reach the client as `ui/dialog-requested` (`:dialog-id` is the tool call id, `:kind
 * "confirm"`) and come back here: `:result true` approves, `"always"` approves the tool from now on,
 * anything else (psi's "no" is `:result nil`) rejects, as does `cancel_dialog`. A dialog that does not
 * wait (never shown, answered elsewhere, timed out) is `request/no-active-dialog`.
 */
function decisionOf(result: unknown): ApprovalCommand['decision'] {
  if (result === true) return 'approve';
  if (typeof result === 'string') {
    const r = result.trim().toLowerCase();
    if (r === 'always') return 'always';
    if (['yes', 'y', 'approve', 'true'].includes(r)) return 'approve';
  }
  return 'reject';
}

async function answer(ctx: OpContext, decision: ApprovalCommand['decision']) {
  const dialogId = text(ctx.params, 'dialog-id');
  const shownIn = ctx.dialogs.get(dialogId);
  const sessionId = shownIn ?? (await ctx.target());
  // A dialog this connection showed may be answered before the turn reports it waiting (the session
  // workflow then takes the answer a moment later); any other must be waiting now.
  if (!shownIn && !(await (await ctx.session(sessionId)).stillPending(dialogId))) {
    throw new EdnOpError(EdnErrorCode.noActiveDialog, `no dialog ${dialogId} is waiting for an answer`);
  }
  await (await ctx.session(sessionId)).answerApproval({ tool_call_id: dialogId, decision });
  ctx.dialogs.delete(dialogId);
  return { accepted: true };
}

export const dialogOps: Record<string, OpHandler> = {
  resolve_dialog: (ctx) => answer(ctx, decisionOf(ctx.params.result)),
  cancel_dialog: (ctx) => answer(ctx, 'reject'),
};
