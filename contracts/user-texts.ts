import { providerFailureKinds } from './failures';

/**
 * The texts more than one front end shows a person (the terminal chat, the EDN client, ACP editors,
 * the WebSocket and HTTP clients), worded once. They say what happened in the person's terms: no
 * activity names, worker ids or other internals (those stay in the logs and the operator view).
 */

/** What a `retry.scheduled` event (or the HTTP stream's `retry`) carries. */
export interface RetryFacts {
  attempt: number;
  max_attempts?: number;
  delay_ms: number;
  kind?: string;
  reason: string;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Why the call failed, in a person's words; a provider's own message is theirs to read, ours is not. */
function retryCause(r: RetryFacts): string {
  switch (r.kind) {
    case 'rate_limited':
      return `the model provider is limiting requests (${r.reason})`;
    case 'overloaded':
      return `the model provider is overloaded (${r.reason})`;
    case 'infrastructure':
      return 'the model call was interrupted (the worker running it stopped)';
    default:
      return (providerFailureKinds as readonly string[]).includes(r.kind ?? '') ? `the model call failed (${r.reason})` : 'the model call was interrupted';
  }
}

/** "The model call was interrupted (the worker running it stopped); retrying (attempt 2/5) in 1.5 s…" */
export function retryNotice(r: RetryFacts): string {
  const cause = retryCause(r);
  const attempt = `attempt ${r.attempt}${r.max_attempts ? `/${r.max_attempts}` : ''}`;
  return `${cause[0]!.toUpperCase()}${cause.slice(1)}; retrying (${attempt}) in ${seconds(r.delay_ms)}…`;
}

/** The notice of an automatic or asked-for compaction that finished. */
export const compactionNotice = (tokensBefore: number): string => `The conversation was compacted to free context (${tokensBefore} tokens before).`;

/** The answer to `/compact` (or the web page's Compact button). */
export function compactResultText(r: { compacted: boolean; tokens_before?: number; tokens_after?: number }): string {
  if (!r.compacted) return 'Nothing to compact yet: the conversation is still short.';
  return r.tokens_before !== undefined && r.tokens_after !== undefined ? `Compacted: ${r.tokens_before} → ${r.tokens_after} tokens.` : 'Compacted.';
}

/** The spending caps as people read them: `$5 · 200000 tokens`, or `none`. */
export function budgetCapsText(budget: { max_cost_usd?: number | null; max_tokens?: number | null } | null | undefined): string {
  const caps = [typeof budget?.max_cost_usd === 'number' ? `$${budget.max_cost_usd}` : '', typeof budget?.max_tokens === 'number' ? `${budget.max_tokens} tokens` : ''].filter(Boolean);
  return caps.length > 0 ? caps.join(' · ') : 'none';
}

export const modelSetText = (model: string): string => `Model set to ${model}.`;
export const thinkingSetText = (level: string): string => `Thinking level set to ${level}.`;
export const nameSetText = (name: string): string => `Session name set to ${name}.`;

/** `/login` (strand has none): where the providers' credentials come from. */
export const NO_LOGIN_TEXT =
  'strand has no login: providers use API keys from the environment of the gateway and the worker (ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL).';
