import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { providerEndpoints } from '../../activities/providers/endpoints';
import { builtinModelCatalog, lookupModel } from '../../contracts/model-catalog';
import { loadModelCatalog } from '../../services/common/model-catalog-file';
import { providerConfig } from '../../services/common/provider-config';

/** The catalog file a user supplies (STRAND_MODELS_FILE) and the provider configuration from the environment. */

let dir: string;
beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-models-'))));
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const write = (name: string, text: string) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
};

describe('STRAND_MODELS_FILE', () => {
  test('absent: the built-in catalog', () => {
    expect(loadModelCatalog({})).toBe(builtinModelCatalog);
  });

  test('entries override built-in ones by provider+id and add new ones', () => {
    const file = write('models.json', JSON.stringify({
      models: [
        { provider: 'openai', id: 'gpt-5-mini', name: 'GPT-5 mini (negotiated)', context_window: 400000, max_output_tokens: 128000, price: { input: 0.2, output: 1.6, cache_read: 0.02 } },
        { provider: 'openai', id: 'qwen3:8b', name: 'Qwen 3 8B on Ollama', context_window: 40960, max_output_tokens: 8192, price: { input: 0, output: 0 }, supports: { thinking: false, tools: true } },
      ],
    }));
    const catalog = loadModelCatalog({ STRAND_MODELS_FILE: file });
    expect(lookupModel(catalog, 'openai/gpt-5-mini')).toMatchObject({ name: 'GPT-5 mini (negotiated)', price: { input: 0.2 }, known: true });
    expect(lookupModel(catalog, 'openai/qwen3:8b')).toMatchObject({ known: true, context_window: 40960 });
    expect(lookupModel(catalog, 'anthropic/claude-haiku-4-5')).toMatchObject({ known: true });
  });

  test('an invalid file is a clear error naming the file and the problem', () => {
    const bad = write('bad.json', JSON.stringify({ models: [{ provider: 'openai', id: 'x', name: 'X', context_window: 'big', max_output_tokens: 1 }] }));
    expect(() => loadModelCatalog({ STRAND_MODELS_FILE: bad })).toThrow(`STRAND_MODELS_FILE=${bad}: not a model catalog: models.0.context_window:`);
    const notJson = write('broken.json', '{ models: ');
    expect(() => loadModelCatalog({ STRAND_MODELS_FILE: notJson })).toThrow(`STRAND_MODELS_FILE=${notJson}: not valid JSON`);
    expect(() => loadModelCatalog({ STRAND_MODELS_FILE: path.join(dir, 'missing.json') })).toThrow(/missing\.json: cannot read it/);
  });
});

describe('provider configuration', () => {
  test('nothing configured: scripted/echo, with a notice saying why', () => {
    const c = providerConfig({});
    expect(c).toMatchObject({ configured: [], defaultModel: 'scripted/echo' });
    expect(c.defaultModelNotice).toMatch(/no provider is configured .*ANTHROPIC_API_KEY.*scripted\/echo/);
  });

  test('the first configured provider gives its catalog default (anthropic before openai)', () => {
    const both = providerConfig({ OPENAI_API_KEY: 'o', ANTHROPIC_API_KEY: 'a', ANTHROPIC_BASE_URL: 'http://127.0.0.1:1' });
    expect(both.configured).toEqual(['anthropic', 'openai']);
    expect(both.anthropic).toEqual({ apiKey: 'a', baseURL: 'http://127.0.0.1:1' });
    expect(both.defaultModel).toMatch(/^anthropic\/claude-sonnet-/);
    expect(both.defaultModelNotice).toContain('first configured provider');
    expect(providerConfig({ OPENAI_API_KEY: 'o' }).defaultModel).toBe('openai/gpt-5-mini');
  });

  test('OPENAI_BASE_URL without a key is configured with a placeholder key, and the notice says so', () => {
    const c = providerConfig({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' });
    expect(c.openai).toMatchObject({ baseURL: 'http://127.0.0.1:11434/v1', placeholderKey: true });
    expect(c.openai!.apiKey).not.toBe('');
    expect(c.defaultModelNotice).toMatch(/placeholder key/);
    expect(c.defaultModelNotice).toMatch(/STRAND_DEFAULT_MODEL=openai\/<model>/);
  });

  test('STRAND_DEFAULT_MODEL wins; bare ids are resolved; bad ones fail; an unconfigured provider is flagged', () => {
    expect(providerConfig({ STRAND_DEFAULT_MODEL: 'openai/llama3', OPENAI_BASE_URL: 'http://x/v1' }).defaultModel).toBe('openai/llama3');
    expect(providerConfig({ STRAND_DEFAULT_MODEL: 'gpt-5-nano', OPENAI_API_KEY: 'k' }).defaultModel).toBe('openai/gpt-5-nano');
    expect(() => providerConfig({ STRAND_DEFAULT_MODEL: 'no provider' })).toThrow(/STRAND_DEFAULT_MODEL=no provider/);
    const c = providerConfig({ STRAND_DEFAULT_MODEL: 'anthropic/claude-haiku-4-5' });
    expect(c.defaultModel).toBe('anthropic/claude-haiku-4-5');
    expect(c.defaultModelNotice).toMatch(/provider anthropic is not configured/);
  });

  test('the worker side (activities/providers/endpoints.ts) reads the variables the same way', () => {
    const envs = [
      {},
      { ANTHROPIC_API_KEY: 'a' },
      { ANTHROPIC_BASE_URL: 'http://a' },
      { ANTHROPIC_API_KEY: 'a', ANTHROPIC_BASE_URL: 'http://a' },
      { OPENAI_API_KEY: ' o ' },
      { OPENAI_BASE_URL: 'http://o/v1' },
      { OPENAI_API_KEY: '', OPENAI_BASE_URL: 'http://o/v1', ANTHROPIC_API_KEY: '  ' },
    ];
    for (const env of envs) {
      const config = providerConfig(env);
      const endpoints = providerEndpoints(env);
      expect(Object.keys(endpoints)).toEqual(config.configured);
      expect(endpoints.anthropic).toEqual(config.anthropic);
      if (config.openai) {
        const { placeholderKey: _p, ...openai } = config.openai;
        expect(endpoints.openai).toEqual(openai);
      }
    }
  });
});
