import type Anthropic from '@anthropic-ai/sdk';
import { builtinModelCatalog, continuesPrefill, lookupModel, type ModelCatalog } from '../../contracts/model-catalog';
import { buildAnthropicRequest } from './anthropic-request';
import { readAnthropicStream } from './anthropic-stream';
import { rethrowProviderFailure } from './classify';
import { anthropicSdk } from './sdk-modules';
import { holdTrailingWhitespace, joinContinuation } from './prefill';
import type { ModelProvider, ProviderChunk, ProviderRequest } from './types';

export interface AnthropicProviderOptions {
  apiKey: string;
  /** ANTHROPIC_BASE_URL, a proxy, or a test server; the SDK's default when absent. */
  baseURL?: string;
  /** Limits, thinking and image support per model; the built-in catalog when absent. */
  catalog?: ModelCatalog;
  /** The provider id models are served under (`anthropic/<model>`). */
  id?: string;
  /** The SDK's own logging; off by default because every failure is reported as a ProviderError. */
  logLevel?: 'off' | 'error' | 'warn' | 'info' | 'debug';
}

/**
 * The Anthropic Messages adapter: one streamed `messages.create` per model step. The SDK never
 * retries (`maxRetries: 0`): the turn workflow owns retries, and a hidden SDK retry would replay
 * deltas the client already saw. Aborting `request.signal` ends the stream at once with its reason.
 * A prefilled request (a retried step) is continued as the catalog allows (`supports.prefill`).
 */
export function createAnthropicProvider(options: AnthropicProviderOptions): ModelProvider {
  const id = options.id ?? 'anthropic';
  const catalog = options.catalog ?? builtinModelCatalog;
  // Made at the first step: the SDK is loaded when first needed (sdk-modules.ts).
  let client: Anthropic | undefined;
  const clientNow = () =>
    (client ??= new (anthropicSdk())({
      apiKey: options.apiKey,
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
      maxRetries: 0,
      logLevel: options.logLevel ?? 'off',
    }));
  return {
    id,
    canContinue: (entry) => continuesPrefill(entry, true),
    async *stream(request: ProviderRequest): AsyncIterable<ProviderChunk> {
      if (request.signal.aborted) throw request.signal.reason;
      const entry = lookupModel(catalog, `${id}/${request.model}`);
      try {
        const events = await clientNow().messages.create(buildAnthropicRequest(request, entry), { signal: request.signal });
        const held = request.prefill ? holdTrailingWhitespace(request.prefill).held : '';
        for await (const chunk of joinContinuation(readAnthropicStream(events), held)) {
          // The SDK ends an aborted stream quietly; the caller must hear the abort, not a short answer.
          if (request.signal.aborted) break;
          yield chunk;
        }
        if (request.signal.aborted) throw request.signal.reason;
      } catch (err) {
        rethrowProviderFailure(id, err, request.signal);
      }
    },
  };
}
