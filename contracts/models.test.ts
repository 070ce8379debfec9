import { modelIdOf, modelParts, parseModelId, splitModelId } from './models';

describe('model ids', () => {
  test('split at the first slash: the model name keeps any further ones', () => {
    expect(parseModelId('anthropic/claude-sonnet-4-5')).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(splitModelId('openai/org/model:latest')).toEqual({ provider: 'openai', model: 'org/model:latest' });
  });

  test('anything that is not <provider>/<model> is undefined for splitModelId and an error naming it for parseModelId', () => {
    for (const bad of ['', 'gpt-5', '/gpt-5', 'openai/']) {
      expect(splitModelId(bad)).toBeUndefined();
      expect(() => parseModelId(bad)).toThrow(`model id "${bad}" is not <provider>/<model>`);
    }
  });

  test('modelIdOf is the inverse of the parse', () => {
    const { provider, model } = parseModelId('scripted/slow');
    expect(modelIdOf(provider, model)).toBe('scripted/slow');
  });
});

describe('modelParts', () => {
  it('splits an id at its first slash, and shows anything else whole with no provider', () => {
    expect(modelParts('openai/gpt-5')).toEqual({ provider: 'openai', model: 'gpt-5' });
    expect(modelParts('openrouter/meta/llama-4')).toEqual({ provider: 'openrouter', model: 'meta/llama-4' });
    expect(modelParts('echo')).toEqual({ provider: '', model: 'echo' });
    expect(modelParts('')).toEqual({ provider: '', model: '' });
  });
});
