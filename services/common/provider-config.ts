import { builtinModelCatalog, defaultModelFor, resolveBareModelId, type ModelCatalog } from '../../contracts/model-catalog';
import { FALLBACK_MODEL, modelIdSchema, parseModelId } from '../../contracts/models';

/**
 * Which LLM providers this process can reach, from the SDKs' standard variables, and the model a new
 * session gets. The worker builds its provider registry from the same variables
 * (activities/providers/endpoints.ts reads them the same way; a test keeps the two in step), and the
 * gateway needs only the default model, so this file stays free of the SDKs.
 */

interface ProviderEndpoint {
  apiKey: string;
  baseURL?: string;
}

/** Sent as the OpenAI key when only OPENAI_BASE_URL is set: local servers (Ollama, vLLM) ignore it. */
const PLACEHOLDER_API_KEY = 'strand-placeholder-key';

export interface ProviderConfig {
  anthropic?: ProviderEndpoint;
  openai?: ProviderEndpoint & { placeholderKey: boolean };
  /** Configured providers, in preference order; `scripted` is always available and not listed. */
  configured: string[];
  defaultModel: string;
  /** Why the default model is what it is, for the log at start. */
  defaultModelNotice: string;
}

const value = (env: NodeJS.ProcessEnv, name: string) => env[name]?.trim() || undefined;

/** Reads the provider variables and chooses the default model. */
export function providerConfig(env: NodeJS.ProcessEnv = process.env, catalog: ModelCatalog = builtinModelCatalog): ProviderConfig {
  const notes: string[] = [];
  const config: Omit<ProviderConfig, 'defaultModel' | 'defaultModelNotice'> = { configured: [] };

  const anthropicKey = value(env, 'ANTHROPIC_API_KEY');
  const anthropicUrl = value(env, 'ANTHROPIC_BASE_URL');
  if (anthropicKey) {
    config.anthropic = { apiKey: anthropicKey, ...(anthropicUrl ? { baseURL: anthropicUrl } : {}) };
    config.configured.push('anthropic');
  } else if (anthropicUrl) {
    notes.push('ANTHROPIC_BASE_URL is set without ANTHROPIC_API_KEY: anthropic is not configured');
  }

  const openaiKey = value(env, 'OPENAI_API_KEY');
  const openaiUrl = value(env, 'OPENAI_BASE_URL');
  if (openaiKey || openaiUrl) {
    config.openai = { apiKey: openaiKey ?? PLACEHOLDER_API_KEY, placeholderKey: !openaiKey, ...(openaiUrl ? { baseURL: openaiUrl } : {}) };
    config.configured.push('openai');
    if (!openaiKey) notes.push(`OPENAI_BASE_URL=${openaiUrl} without OPENAI_API_KEY: openai uses a placeholder key (fine for local servers such as Ollama)`);
  }

  const { model, why } = chooseDefault(env, catalog, config.configured);
  return { ...config, defaultModel: model, defaultModelNotice: [why, ...notes].join('; ') };
}

function chooseDefault(env: NodeJS.ProcessEnv, catalog: ModelCatalog, configured: string[]): { model: string; why: string } {
  const explicit = value(env, 'STRAND_DEFAULT_MODEL');
  if (explicit) {
    const full = resolveBareModelId(catalog, explicit) ?? explicit;
    const parsed = modelIdSchema.safeParse(full);
    if (!parsed.success) throw new Error(`STRAND_DEFAULT_MODEL=${explicit}: ${parsed.error.issues[0]?.message}`);
    const { provider } = parseModelId(full);
    const usable = provider === 'scripted' || configured.includes(provider);
    const why = `the default model is ${full} (STRAND_DEFAULT_MODEL)`;
    return { model: full, why: usable ? why : `${why}, but provider ${provider} is not configured: its turns will fail until it is` };
  }
  const first = configured[0];
  const model = first ? defaultModelFor(catalog, first) : undefined;
  if (first && model) {
    const local = first === 'openai' && !value(env, 'OPENAI_API_KEY') ? ' (a local server may not serve it: set STRAND_DEFAULT_MODEL=openai/<model>)' : '';
    return { model, why: `the default model is ${model}, the catalog default of ${first}, the first configured provider${local}; STRAND_DEFAULT_MODEL chooses another` };
  }
  return {
    model: FALLBACK_MODEL,
    why: `no provider is configured (ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL): the default model is ${FALLBACK_MODEL}`,
  };
}
