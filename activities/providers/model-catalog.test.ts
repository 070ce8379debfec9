import {
  builtinModelCatalog,
  clampThinkingLevel,
  continuesPrefill,
  defaultModelFor,
  lookupModel,
  mergeCatalogs,
  modelCatalogFileSchema,
  priceUsage,
  resolveBareModelId,
} from '../../contracts/model-catalog';

/** The model catalog (contracts/model-catalog.ts): lookups, prices, thinking levels, bare ids. */

const catalog = builtinModelCatalog;

test('the built-in catalog is valid and names each provider once per id, with a default per provider', () => {
  const keys = catalog.models.map((m) => `${m.provider}/${m.id}`);
  expect(new Set(keys).size).toBe(keys.length);
  for (const provider of ['anthropic', 'openai', 'scripted']) expect(catalog.models.filter((m) => m.provider === provider && m.default)).toHaveLength(1);
  for (const m of catalog.models) {
    if (m.supports.thinking) expect(m.thinking_levels?.length).toBeGreaterThan(0);
    expect(m.max_output_tokens).toBeLessThanOrEqual(m.context_window);
  }
  expect(keys).toEqual(expect.arrayContaining(['anthropic/claude-sonnet-4-5', 'anthropic/claude-haiku-4-5', 'openai/gpt-5-mini', 'openai/gpt-4o', 'openai/o3', 'scripted/echo']));
});

test('lookupModel: exact entries are known; unknown ids get default limits, unknown price, known: false', () => {
  expect(lookupModel(catalog, 'anthropic/claude-sonnet-4-5')).toMatchObject({ known: true, context_window: 200000, price: { input: 3, output: 15 } });
  expect(lookupModel(catalog, 'openai/llama3.1:8b')).toMatchObject({
    known: false, provider: 'openai', id: 'llama3.1:8b', price: null, supports: { thinking: false, tools: true }, context_window: 128000,
  });
  expect(() => lookupModel(catalog, 'nonsense')).toThrow(/<provider>\/<model>/);
});

test('lookupModel: a provider wildcard entry serves any id of that provider (scripted scripts)', () => {
  const e = lookupModel(catalog, 'scripted/my-test-script');
  expect(e).toMatchObject({ known: true, id: 'my-test-script', price: { input: 0, output: 0 } });
  expect(e.default).toBeUndefined();
});

test('priceUsage: per million tokens, cache prices included; unknown price → 0, flagged', () => {
  const sonnet = lookupModel(catalog, 'anthropic/claude-sonnet-4-5');
  const usage = { input: 1_000_000, output: 100_000, cache_read: 2_000_000, cache_write: 400_000 };
  // 3 + 1.5 + 0.6 + 1.5
  expect(priceUsage(sonnet, usage).cost_usd).toBeCloseTo(6.6, 6);
  expect(priceUsage(sonnet, usage).priced).toBe(true);
  expect(priceUsage(lookupModel(catalog, 'openai/unknown-model'), usage)).toEqual({ cost_usd: 0, priced: false });
  // Cache prices left out fall back to the input price.
  expect(priceUsage({ price: { input: 2, output: 4 } }, { input: 0, output: 0, cache_read: 1_000_000, cache_write: 1_000_000 }).cost_usd).toBeCloseTo(4, 6);
});

test('clampThinkingLevel: supported levels pass, higher ones come down, lower ones go up to the minimum', () => {
  const gpt5 = lookupModel(catalog, 'openai/gpt-5');
  expect(clampThinkingLevel(gpt5, 'low')).toBe('low');
  expect(clampThinkingLevel(gpt5, 'xhigh')).toBe('high');
  expect(clampThinkingLevel(gpt5, 'off')).toBe('minimal'); // gpt-5 always reasons
  const o3 = lookupModel(catalog, 'openai/o3');
  expect(clampThinkingLevel(o3, 'minimal')).toBe('low');
  const opus41 = lookupModel(catalog, 'anthropic/claude-opus-4-1');
  expect(clampThinkingLevel(opus41, 'xhigh')).toBe('high');
  expect(clampThinkingLevel(opus41, 'off')).toBe('off');
  expect(clampThinkingLevel(lookupModel(catalog, 'openai/gpt-4o'), 'high')).toBe('off');
  expect(clampThinkingLevel(lookupModel(catalog, 'anthropic/new-model'), 'high')).toBe('off');
});

test('resolveBareModelId: bare ids get their provider; full references pass; unknown bare ids are undefined', () => {
  expect(resolveBareModelId(catalog, 'gpt-5-mini')).toBe('openai/gpt-5-mini');
  expect(resolveBareModelId(catalog, 'claude-haiku-4-5')).toBe('anthropic/claude-haiku-4-5');
  expect(resolveBareModelId(catalog, 'openai/whatever')).toBe('openai/whatever');
  expect(resolveBareModelId(catalog, 'mystery')).toBeUndefined();
});

test('mergeCatalogs: later entries replace same provider+id, new ones are added; defaults per provider', () => {
  const user = modelCatalogFileSchema.parse({
    models: [
      { provider: 'openai', id: 'gpt-5-mini', name: 'cheap', context_window: 1000, max_output_tokens: 100, price: { input: 9, output: 9 } },
      { provider: 'ollama', id: 'qwen3', name: 'Qwen 3', context_window: 32768, max_output_tokens: 8192, default: true },
    ],
  });
  const merged = mergeCatalogs(catalog, user);
  expect(lookupModel(merged, 'openai/gpt-5-mini')).toMatchObject({ name: 'cheap', price: { input: 9 }, supports: { thinking: false, tools: true, images: false } });
  expect(lookupModel(merged, 'ollama/qwen3')).toMatchObject({ known: true, price: null });
  expect(merged.models.length).toBe(catalog.models.length + 1);
  expect(defaultModelFor(merged, 'ollama')).toBe('ollama/qwen3');
  expect(defaultModelFor(catalog, 'anthropic')).toMatch(/^anthropic\/claude-sonnet-/);
  expect(defaultModelFor(catalog, 'openai')).toBe('openai/gpt-5-mini');
  expect(defaultModelFor(catalog, 'nobody')).toBeUndefined();
});

test('prefill: Anthropic and scripted models continue a final assistant message, OpenAI ones do not; a file can say otherwise', () => {
  for (const m of catalog.models) expect(m.supports.prefill).toBe(m.provider !== 'openai');
  expect(continuesPrefill(lookupModel(catalog, 'anthropic/claude-sonnet-4-6'))).toBe(true);
  expect(continuesPrefill(lookupModel(catalog, 'openai/gpt-5-mini'))).toBe(false);
  expect(continuesPrefill(lookupModel(catalog, 'scripted/any-script'))).toBe(true);
  // Ids outside the catalog: the provider's default, or the adapter's own.
  expect(continuesPrefill(lookupModel(catalog, 'anthropic/claude-next'))).toBe(true);
  expect(continuesPrefill(lookupModel(catalog, 'openai/llama3.1:8b'))).toBe(false);
  expect(continuesPrefill(lookupModel(catalog, 'local/qwen'), true)).toBe(true);
  const own = modelCatalogFileSchema.parse({ models: [{ provider: 'openai', id: '*', name: 'vLLM', context_window: 32000, max_output_tokens: 4096, supports: { prefill: true } }] });
  expect(continuesPrefill(lookupModel(mergeCatalogs(catalog, own), 'openai/qwen2.5'))).toBe(true);
});
