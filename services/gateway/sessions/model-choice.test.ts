import { builtinModelCatalog } from '../../../contracts/model-catalog';
import { ModelChoice } from './model-choice';

describe('ModelChoice', () => {
  const choice = new ModelChoice(builtinModelCatalog, ['anthropic']);

  test('resolves bare ids and full references of configured providers; refuses the others', () => {
    expect(choice.resolve('claude-sonnet-4-5').ref).toBe('anthropic/claude-sonnet-4-5');
    expect(choice.resolve('anthropic/claude-sonnet-4-5').entry.known).toBe(true);
    expect(choice.resolve('anthropic/some-new-model').entry.known).toBe(false);
    expect(() => choice.resolve('openai/gpt-5-mini')).toThrow(/provider "openai" is not configured/);
    expect(() => choice.resolve('no such thing')).toThrow(/unknown model/);
  });

  test('cycles through models of configured providers and scripted ones only', () => {
    const list = choice.cycle();
    expect(list.every((m) => m.startsWith('anthropic/') || m.startsWith('scripted/'))).toBe(true);
    expect(choice.next(list[list.length - 1]!)).toBe(list[0]);
    expect(choice.next(list[0]!)).toBe(list[1]);
  });

  test('clamps thinking levels to the model and cycles through the supported ones', () => {
    expect(choice.clamp('scripted/echo', 'high')).toBe('off');
    expect(choice.clamp('anthropic/claude-opus-4-1', 'xhigh')).toBe('high');
    expect(choice.nextLevel('anthropic/claude-opus-4-1', 'high')).toBe('off');
    expect(choice.nextLevel('anthropic/claude-opus-4-1', 'off')).toBe('minimal');
  });
});
