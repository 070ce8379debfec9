import type { PromptCommand } from '../../../../../contracts/session-workflow';
import { EdnErrorCode, EdnOpError } from '../../protocol';
import type { OpContext, OpHandler } from '../op-context';
import { optText, refuseImages, text } from '../params';
import { ednPromptRequestId } from '../prompt-request-id';

/**
 * Prompting and stopping. The response goes out before the turn's first event (the feed is held
 * while the session takes the prompt), and the turn's events carry the prompting request's id. The
 * prompt carries a request id derived from the frame, so the same frame sent again starts no second turn.
 */
async function promptWith(ctx: OpContext, behavior: NonNullable<PromptCommand['behavior']>) {
  refuseImages(ctx.params);
  const message = text(ctx.params, 'message');
  const sessionId = await ctx.target();
  const release = ctx.holdEvents(sessionId);
  try {
    const requestId = ednPromptRequestId(sessionId, ctx.req.id, behavior, message);
    const accepted = await ctx.sessions.prompt(sessionId, ctx.principal, { text: message, behavior, request_id: requestId });
    // A steering message joins a turn another request started: its events keep that request's id.
    if (!accepted.steered) ctx.feedOf(sessionId)?.stream.attribute(accepted.turn_id, ctx.req.id);
    return accepted;
  } finally {
    release();
  }
}

export const turnOps: Record<string, OpHandler> = {
  /** Starts a turn; a busy session answers `request/session-not-idle` (psi's rule: prompt only when idle). */
  prompt: async (ctx) => {
    await promptWith(ctx, 'reject');
    return { accepted: true };
  },

  /** While a turn runs: `steer` hands the message to it, `queue` runs it after (psi's default is steer). */
  prompt_while_streaming: async (ctx) => {
    const behavior = optText(ctx.params, 'behavior') ?? 'steer';
    if (behavior !== 'steer' && behavior !== 'queue') throw new EdnOpError(EdnErrorCode.invalidParams, 'prompt_while_streaming :behavior must be "steer" or "queue"');
    const accepted = await promptWith(ctx, behavior);
    return { accepted: true, behavior, queued: accepted.queued, steered: accepted.steered === true };
  },

  steer: async (ctx) => {
    await promptWith(ctx, 'steer');
    return { accepted: true };
  },

  follow_up: async (ctx) => {
    await promptWith(ctx, 'queue');
    return { accepted: true };
  },

  /**
   * Stops the running turn. The client drops its partial answer at once, so from this moment the
   * turn sends no more deltas, tool rows or final message; its end shows as `session/updated`.
   */
  abort: async (ctx) => {
    const sessionId = await ctx.target();
    const stream = ctx.feedOf(sessionId)?.stream;
    stream?.abortRequested();
    try {
      const result = await (await ctx.session(sessionId)).abort();
      stream?.aborted(result.turn_id);
      return { accepted: true, aborted: result.aborted };
    } catch (err) {
      stream?.aborted(null);
      throw err;
    }
  },

  /**
   * psi's deferred interrupt (C-c C-c): the turn finishes the step under way, tool calls included,
   * then stops without calling the model again; a no-op when idle. Steering text already sent is kept
   * as user messages in the transcript, so nothing is handed back to the draft.
   */
  interrupt: async (ctx) => {
    const sessionId = await ctx.target();
    const result = await (await ctx.session(sessionId)).interrupt();
    return { accepted: true, pending: result.pending, 'dropped-steering-text': null };
  },

  /** Gives up a provider retry the turn waits for: the turn ends with the error it was retrying. */
  abort_retry: async (ctx) => {
    const sessionId = await ctx.target();
    const result = await (await ctx.session(sessionId)).abortRetry();
    return { accepted: true, cancelled: result.cancelled };
  },

  /** Compacts an idle session now (`request/session-not-idle` while a turn runs). */
  compact: async (ctx) => {
    const sessionId = await ctx.target();
    const instructions = optText(ctx.params, 'custom-instructions');
    const result = await (await ctx.session(sessionId)).compact(instructions?.trim() || undefined);
    return { compacted: result.compacted, summary: result.summary, 'tokens-before': result.tokens_before, 'tokens-after': result.tokens_after };
  },
};
