/**
 * The LLM endpoints the SDKs' standard variables configure, for the worker's provider registry.
 * services/common/provider-config.ts reads the same variables for the gateway's default model (it
 * may not import activities/); endpoints.test.ts keeps the two in step.
 */

export interface Endpoint {
  apiKey: string;
  baseURL?: string;
}

/** Sent as the OpenAI key when only OPENAI_BASE_URL is set: local servers (Ollama, vLLM) ignore it. */
const PLACEHOLDER_API_KEY = 'strand-placeholder-key';

export interface Endpoints {
  anthropic?: Endpoint;
  /** Configured by a key, or by a base URL alone (local OpenAI-compatible servers need no key). */
  openai?: Endpoint;
}

export function providerEndpoints(env: Record<string, string | undefined>): Endpoints {
  const value = (name: string) => env[name]?.trim() || undefined;
  const out: Endpoints = {};
  const anthropicKey = value('ANTHROPIC_API_KEY');
  const anthropicUrl = value('ANTHROPIC_BASE_URL');
  if (anthropicKey) out.anthropic = { apiKey: anthropicKey, ...(anthropicUrl ? { baseURL: anthropicUrl } : {}) };
  const openaiKey = value('OPENAI_API_KEY');
  const openaiUrl = value('OPENAI_BASE_URL');
  if (openaiKey || openaiUrl) out.openai = { apiKey: openaiKey ?? PLACEHOLDER_API_KEY, ...(openaiUrl ? { baseURL: openaiUrl } : {}) };
  return out;
}
