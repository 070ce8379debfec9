import { parseModelId } from '../../contracts/models';
import { ProviderError, type ModelProvider } from './types';

/** Providers keyed by the `<provider>` part of model ids. */
export class ProviderRegistry {
  private readonly providers = new Map<string, ModelProvider>();

  constructor(providers: ModelProvider[] = []) {
    for (const p of providers) this.register(p);
  }

  register(provider: ModelProvider): void {
    this.providers.set(provider.id, provider);
  }

  has(providerId: string): boolean {
    return this.providers.has(providerId);
  }

  /** The provider and model name for a model id; unknown providers are permanent failures. */
  resolve(modelId: string): { provider: ModelProvider; model: string } {
    let parsed: { provider: string; model: string };
    try {
      parsed = parseModelId(modelId);
    } catch (err) {
      throw new ProviderError('permanent', (err as Error).message);
    }
    const provider = this.providers.get(parsed.provider);
    if (!provider) {
      const known = [...this.providers.keys()].join(', ') || 'none';
      throw new ProviderError('permanent', `no provider "${parsed.provider}" is configured (configured: ${known})`);
    }
    return { provider, model: parsed.model };
  }
}
