import { builtinModelCatalog, lookupModel, priceUsage, resolveBareModelId, type CatalogModel, type ModelCatalog } from '../../contracts/model-catalog';
import { parseModelId } from '../../contracts/models';
import { createAnthropicProvider } from './anthropic';
import { providerEndpoints, type Endpoint } from './endpoints';
import { createOpenAIProvider, openAIPrefillFromEnv } from './openai';
import { createScriptedProvider, type ScriptedProviderOptions } from './scripted';
import type { SharedBackoff } from './shared-backoff-kv';
import { withSharedBackoff } from './with-shared-backoff';
import { UnservableModelError, type ModelProvider, type ProviderUsage } from './types';

/** A model reference resolved to the adapter that serves it and what the catalog says about it. */
export interface ResolvedModel {
  provider: ModelProvider;
  /** The provider's own model id (the part after `<provider>/`). */
  model: string;
  /** The catalog entry, or default limits when the catalog does not know the id. */
  entry: CatalogModel;
  known: boolean;
}

/** Providers keyed by the `<provider>` part of model references. */
export class ProviderRegistry {
  private readonly providers = new Map<string, ModelProvider>();

  constructor(
    providers: ModelProvider[] = [],
    readonly catalog: ModelCatalog = builtinModelCatalog,
  ) {
    for (const p of providers) this.register(p);
  }

  register(provider: ModelProvider): void {
    this.providers.set(provider.id, provider);
  }

  has(providerId: string): boolean {
    return this.providers.has(providerId);
  }

  /** Ids of the registered providers, in registration order. */
  ids(): string[] {
    return [...this.providers.keys()];
  }

  /**
   * The adapter and catalog entry for `<provider>/<model>` (a bare id the catalog knows, such as
   * `gpt-5-mini`, is accepted too). Ids outside the catalog still resolve, with default limits, when
   * their provider is configured; an unconfigured provider is a permanent failure.
   */
  resolve(modelRef: string): ResolvedModel {
    const full = resolveBareModelId(this.catalog, modelRef) ?? modelRef;
    let parsed: { provider: string; model: string };
    try {
      parsed = parseModelId(full);
    } catch (err) {
      throw new UnservableModelError((err as Error).message);
    }
    const provider = this.providers.get(parsed.provider);
    if (!provider) {
      const known = this.ids().join(', ') || 'none';
      throw new UnservableModelError(`no provider "${parsed.provider}" is configured (configured: ${known})`, parsed.provider);
    }
    const entry = lookupModel(this.catalog, full);
    return { provider, model: parsed.model, entry, known: entry.known };
  }

  /** The cost in USD of a step's usage (0 for models without a catalog price). */
  price(modelRef: string, usage: ProviderUsage): number {
    const full = resolveBareModelId(this.catalog, modelRef) ?? modelRef;
    try {
      return priceUsage(lookupModel(this.catalog, full), usage).cost_usd;
    } catch {
      return 0;
    }
  }
}

export interface CreateProviderRegistryOptions {
  /** Where ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, OPENAI_API_KEY, OPENAI_BASE_URL, STRAND_OPENAI_PREFILL are read (default: process.env). */
  env?: Record<string, string | undefined>;
  catalog?: ModelCatalog;
  scriptedOptions?: ScriptedProviderOptions;
  /** One backoff per provider key, shared by every session and worker (absent: each session backs off alone). */
  sharedBackoff?: SharedBackoff;
}

/** The registry a worker uses: `scripted` always, `anthropic` and `openai` when the environment configures them. */
export function createProviderRegistry(options: CreateProviderRegistryOptions = {}): ProviderRegistry {
  const env = options.env ?? process.env;
  const catalog = options.catalog ?? builtinModelCatalog;
  const registry = new ProviderRegistry([createScriptedProvider({ env, ...options.scriptedOptions })], catalog);
  const endpoints = providerEndpoints(env);
  // The real adapters only: the scripted provider has no limits to share.
  const shared = (provider: ModelProvider, endpoint: Endpoint) =>
    options.sharedBackoff ? withSharedBackoff(provider, options.sharedBackoff, { provider: provider.id, apiKey: endpoint.apiKey, ...(endpoint.baseURL ? { baseURL: endpoint.baseURL } : {}) }) : provider;
  if (endpoints.anthropic) registry.register(shared(createAnthropicProvider({ ...endpoints.anthropic, catalog }), endpoints.anthropic));
  if (endpoints.openai) {
    const prefill = openAIPrefillFromEnv(env);
    registry.register(shared(createOpenAIProvider({ ...endpoints.openai, catalog, ...(prefill ? { prefill } : {}) }), endpoints.openai));
  }
  return registry;
}
