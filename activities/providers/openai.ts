import type OpenAI from 'openai';
import { builtinModelCatalog, continuesPrefill, lookupModel, type ModelCatalog } from '../../contracts/model-catalog';
import { rethrowProviderFailure } from './classify';
import { buildOpenAIRequest, type OpenAIPrefillDialect } from './openai-request';
import { readOpenAIStream } from './openai-stream';
import { openAISdk } from './sdk-modules';
import type { ModelProvider, ProviderChunk, ProviderRequest } from './types';

export interface OpenAIProviderOptions {
  apiKey: string;
  /** OPENAI_BASE_URL: OpenAI itself when absent, or any compatible server (Ollama, vLLM, llama.cpp). */
  baseURL?: string;
  /** The provider id models are served under; a second compatible server can be registered as another id. */
  id?: string;
  /** Limits and reasoning support per model; the built-in catalog when absent. */
  catalog?: ModelCatalog;
  /** The SDK's own logging; off by default because every failure is reported as a ProviderError. */
  logLevel?: 'off' | 'error' | 'warn' | 'info' | 'debug';
  /**
   * Whether the server continues a prefill, for every model it serves (STRAND_OPENAI_PREFILL): `off`,
   * or how it is asked. Unset: the catalog's `supports.prefill` per model (OpenAI's own API: no).
   */
  prefill?: OpenAIPrefill;
}

/** STRAND_OPENAI_PREFILL's values. */
export type OpenAIPrefill = 'off' | OpenAIPrefillDialect;
const PREFILL_VALUES: readonly OpenAIPrefill[] = ['off', 'final-message', 'continue-final-message'];

/** Reads STRAND_OPENAI_PREFILL (unset or empty: undefined, the catalog decides); any other value is a configuration error. */
export function openAIPrefillFromEnv(env: Record<string, string | undefined>): OpenAIPrefill | undefined {
  const value = env.STRAND_OPENAI_PREFILL?.trim();
  if (!value) return undefined;
  if ((PREFILL_VALUES as readonly string[]).includes(value)) return value as OpenAIPrefill;
  throw new Error(`STRAND_OPENAI_PREFILL must be one of ${PREFILL_VALUES.join(', ')} (got "${value}")`);
}

/**
 * The OpenAI streaming Chat Completions adapter. `maxRetries: 0`: the turn workflow owns retries.
 * Aborting `request.signal` ends the stream at once with the signal's reason.
 */
export function createOpenAIProvider(options: OpenAIProviderOptions): ModelProvider {
  const id = options.id ?? 'openai';
  const catalog = options.catalog ?? builtinModelCatalog;
  // Made at the first step: the SDK is loaded when first needed (sdk-modules.ts).
  let client: OpenAI | undefined;
  const clientNow = () =>
    (client ??= new (openAISdk())({
      apiKey: options.apiKey,
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
      maxRetries: 0,
      logLevel: options.logLevel ?? 'off',
    }));
  const prefill = options.prefill;
  return {
    id,
    canContinue: (entry) => (prefill ? prefill !== 'off' : continuesPrefill(entry, false)),
    async *stream(request: ProviderRequest): AsyncIterable<ProviderChunk> {
      if (request.signal.aborted) throw request.signal.reason;
      const entry = lookupModel(catalog, `${id}/${request.model}`);
      const dialect = prefill === 'continue-final-message' ? prefill : 'final-message';
      try {
        const chunks = await clientNow().chat.completions.create(buildOpenAIRequest(request, entry, dialect), { signal: request.signal });
        for await (const chunk of readOpenAIStream(id, chunks)) {
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
