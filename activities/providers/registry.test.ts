import { builtinModelCatalog, mergeCatalogs, modelCatalogFileSchema } from '../../contracts/model-catalog';
import { createProviderRegistry, ProviderRegistry } from './registry';
import { ProviderError, type ModelProvider } from './types';

/** The provider registry: which providers an environment configures, and resolving model references. */

test('scripted is always there; anthropic and openai join when the environment configures them', () => {
  expect(createProviderRegistry({ env: {} }).ids()).toEqual(['scripted']);
  expect(createProviderRegistry({ env: { ANTHROPIC_API_KEY: 'k' } }).ids()).toEqual(['scripted', 'anthropic']);
  // A base URL alone configures openai (local servers need no key); one for anthropic does not.
  expect(createProviderRegistry({ env: { OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', ANTHROPIC_BASE_URL: 'http://x' } }).ids()).toEqual(['scripted', 'openai']);
  expect(createProviderRegistry({ env: { ANTHROPIC_API_KEY: ' ', OPENAI_API_KEY: '' } }).ids()).toEqual(['scripted']);
});

test('resolve gives the adapter, the provider model id and the catalog entry (default limits when unknown)', () => {
  const registry = createProviderRegistry({ env: { OPENAI_API_KEY: 'k' } });
  const known = registry.resolve('openai/gpt-5-mini');
  expect(known.provider.id).toBe('openai');
  expect(known).toMatchObject({ model: 'gpt-5-mini', known: true, entry: { id: 'gpt-5-mini', max_output_tokens: 128000 } });
  const local = registry.resolve('openai/llama3.1:8b');
  expect(local).toMatchObject({ model: 'llama3.1:8b', known: false, entry: { price: null, max_output_tokens: 8192 } });
  // Clients that send bare ids.
  expect(registry.resolve('gpt-5-mini')).toMatchObject({ model: 'gpt-5-mini', known: true });
  expect(registry.resolve('scripted/echo')).toMatchObject({ model: 'echo', known: true });
});

test('an unconfigured provider is a permanent error naming the configured ones', () => {
  const registry = createProviderRegistry({ env: {} });
  const attempt = () => registry.resolve('anthropic/claude-sonnet-4-5');
  expect(attempt).toThrow(ProviderError);
  expect(attempt).toThrow('no provider "anthropic" is configured (configured: scripted)');
  try {
    attempt();
  } catch (err) {
    expect(err).toMatchObject({ kind: 'permanent' });
  }
  expect(() => registry.resolve('not a model')).toThrow(ProviderError);
});

test('price uses the registry catalog; the constructor stays compatible with a plain provider list', () => {
  const fake: ModelProvider = { id: 'test', stream: async function* () {} };
  const catalog = mergeCatalogs(builtinModelCatalog, modelCatalogFileSchema.parse({ models: [{ provider: 'test', id: 'm', name: 'M', context_window: 10, max_output_tokens: 5, price: { input: 1, output: 2 } }] }));
  const registry = new ProviderRegistry([fake], catalog);
  expect(registry.resolve('test/m')).toMatchObject({ model: 'm', known: true });
  expect(registry.price('test/m', { input: 1_000_000, output: 1_000_000, cache_read: 0, cache_write: 0 })).toBeCloseTo(3, 6);
  expect(registry.price('test/other', { input: 5, output: 5, cache_read: 0, cache_write: 0 })).toBe(0);
  expect(new ProviderRegistry([fake]).resolve('test/x').known).toBe(false);
});
