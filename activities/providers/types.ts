/**
 * The provider contract every LLM adapter implements (anthropic, openai, scripted).
 *
 * Input: the step's context as the store's content blocks (text, thinking, images, function calls
 * and their results), a system prompt, the tools the model may call (JSON Schema generated from the
 * tools' zod schemas), the thinking level and an abort signal.
 *
 * Output: an async stream of chunks, in order, ending with exactly one `done` chunk:
 * - `text_delta` / `thinking_delta` append to the current text / thinking block (a change of kind
 *   starts a new block); `thinking_signature` closes the current thinking block with the signature a
 *   provider needs to see again on the next request;
 * - `tool_call_start` → `tool_call_delta`* → `tool_call_end` per call (calls may interleave by `id`);
 *   `tool_call_end.arguments` is the parsed JSON object (an adapter that receives unparseable
 *   arguments yields `{}` plus `invalid_arguments` with the raw text, so the tool reports it to the
 *   model instead of the turn failing);
 * - `done` carries the stop reason, the provider's own stop reason and token usage (no cost: the
 *   caller prices usage from the model catalog).
 *
 * Failures (HTTP errors, dropped connections, malformed events) are thrown as {@link ProviderError}
 * with a classification the turn's retry logic understands; they are never hidden in a `done` chunk.
 * Cancellation arrives through `signal`: the adapter stops reading and throws the signal's reason.
 * Adapters never retry on their own (SDK `maxRetries: 0`): the turn workflow owns retries.
 *
 * Continuation (`prefill`): a model step retried after its worker died goes on from the text clients
 * already have. The adapter sends the conversation plus a final assistant message holding `prefill`
 * (reshaped as its API demands: Anthropic's may not end in whitespace, and it takes no extended
 * thinking with it) and streams only what follows it, so that `prefill` + the streamed text is the
 * answer. Only asked of adapters whose `canContinue` says the model can.
 */
import type { CatalogModel } from '../../contracts/model-catalog';
import type { ContentBlock } from '../../contracts/session-store/messages';

/** How hard the model should think; adapters map it onto their API (budget, effort) or ignore it. */
export type ThinkingLevel = 'off' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';

/** A message of the step's context, in the store's vocabulary. */
export type ProviderMessage =
  | { role: 'user'; content: ContentBlock[] }
  | { role: 'assistant'; content: ContentBlock[] }
  | { role: 'function_result'; function_call_id: string; function_id: string; content: ContentBlock[]; is_error: boolean };

/** A tool the model may call. `input_schema` is a JSON Schema object. */
export interface ProviderTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/** What a provider is asked to do for one model step. */
export interface ProviderRequest {
  /** The provider's own model id (the part after `<provider>/`). */
  model: string;
  system: string;
  messages: ProviderMessage[];
  tools: ProviderTool[];
  thinking_level: ThinkingLevel;
  /** Output token cap for the step (from the model catalog). */
  max_output_tokens?: number;
  /** The answer's text so far (published by an earlier attempt): continue it; the stream carries only what follows. */
  prefill?: string;
  signal: AbortSignal;
}

/** Token accounting as providers report it (prices are applied by the caller). */
export interface ProviderUsage {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
  reasoning?: number;
}

export type ProviderStopReason = 'end' | 'length' | 'function_call';

/** One piece of a streamed answer. */
export type ProviderChunk =
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; text: string }
  | { type: 'thinking_signature'; signature: string }
  | { type: 'tool_call_start'; id: string; name: string }
  | { type: 'tool_call_delta'; id: string; arguments_delta: string }
  | { type: 'tool_call_end'; id: string; arguments: Record<string, unknown>; invalid_arguments?: string }
  | { type: 'done'; stop_reason: ProviderStopReason; native_stop_reason?: string; usage: ProviderUsage };

/**
 * How a failure should be treated:
 * - `rate_limited` (429), `overloaded` (529 / 503 overloaded), `transient` (5xx, dropped connection,
 *   stall, malformed stream): retried by the turn with backoff, honouring `retryAfterMs`;
 * - `auth` (401/403), `permanent` (other 4xx, unknown model): end the turn with an error;
 * - `context_overflow`: the prompt is too long for the model: compact, then retry once.
 */
export type ProviderErrorKind = 'rate_limited' | 'overloaded' | 'transient' | 'auth' | 'context_overflow' | 'permanent';

export interface ProviderErrorDetails {
  /** The provider id (`anthropic`, `openai`, …), for messages that name who failed. */
  provider?: string;
  /** HTTP status, when there was one. */
  status?: number;
  /** How long the provider asked us to wait (`retry-after-ms`, `retry-after`). */
  retryAfterMs?: number;
  /** Not sent at all: the key's shared backoff window is open (with-shared-backoff.ts); the wait is `retryAfterMs`. */
  sharedBackoff?: boolean;
  cause?: unknown;
}

/** A classified provider failure. */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  readonly provider: string | undefined;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  readonly sharedBackoff: boolean;
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    details: ProviderErrorDetails = {},
  ) {
    super(message, { cause: details.cause });
    this.provider = details.provider;
    this.status = details.status;
    this.retryAfterMs = details.retryAfterMs;
    this.sharedBackoff = details.sharedBackoff ?? false;
  }
}

/**
 * A model this worker has no adapter for (its provider is not configured here, or the id is not
 * `<provider>/<model>`): the session's setting is at fault, not a provider, and the turn reports it.
 */
export class UnservableModelError extends ProviderError {
  constructor(message: string, provider?: string) {
    super('permanent', message, provider ? { provider } : {});
  }
}

/** A provider adapter. */
export interface ModelProvider {
  /** The `<provider>` part of model ids it serves. */
  readonly id: string;
  stream(request: ProviderRequest): AsyncIterable<ProviderChunk>;
  /** Whether a request with `prefill` is continued for this model (absent: never asked). */
  canContinue?(entry: CatalogModel): boolean;
}
