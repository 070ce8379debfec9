/**
 * The provider contract every LLM adapter implements (anthropic, openai, scripted).
 *
 * Contract: `stream` yields text/thinking deltas in order and ends with exactly one `done` chunk.
 * Transport or API failures are thrown as {@link ProviderError} with a classification the turn's
 * retry policy understands; they are never hidden in a `done` chunk. Cancellation arrives through
 * `signal`: the adapter stops reading and throws the signal's reason.
 */

/** A message as a provider sees it: role and plain text parts (tools and images come later). */
export interface ProviderMessage {
  role: 'user' | 'assistant';
  text: string;
}

/** What a provider is asked to do for one model step. */
export interface ProviderRequest {
  model: string;
  messages: ProviderMessage[];
  thinking_level: string;
  signal: AbortSignal;
}

/** Token accounting as providers report it. */
export interface ProviderUsage {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
  cost_usd: number;
}

/** One piece of a streamed answer. */
export type ProviderChunk =
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; text: string }
  | { type: 'done'; stop_reason: 'end' | 'length' | 'function_call'; usage: ProviderUsage };

/** How a failure should be treated: retried, retried after a delay, or surfaced. */
export type ProviderErrorKind = 'rate_limited' | 'transient' | 'auth_expired' | 'context_overflow' | 'permanent';

/** A classified provider failure. */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    readonly retryAfterMs?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A provider adapter. */
export interface ModelProvider {
  /** The `<provider>` part of model ids it serves. */
  readonly id: string;
  stream(request: ProviderRequest): AsyncIterable<ProviderChunk>;
}
