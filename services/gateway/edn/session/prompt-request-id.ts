import { createHash } from 'node:crypto';

/**
 * The request id an EDN prompt carries to the session, so a prompt the client sends again (a
 * reconnecting client resends what it had not seen answered) is answered with the turn it started
 * instead of starting a second one: the session workflow de-duplicates prompts by request id.
 *
 * EDN frames carry only the client's `:id`, which is unique per client run but may be a counter
 * that starts again when the client restarts; the id is therefore derived from the session, the
 * `:id`, the op's behaviour and the text, so only the same prompt to the same session under the same
 * `:id` counts as a resend. Hashed, so any `:id` fits the command's length bound.
 */
export function ednPromptRequestId(sessionId: string, ednRequestId: string, behavior: string, text: string): string {
  const digest = createHash('sha256').update([sessionId, ednRequestId, behavior, text].join('\u0000')).digest('base64url');
  return `edn:${digest.slice(0, 32)}`;
}
