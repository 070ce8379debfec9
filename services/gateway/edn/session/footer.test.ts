import { abbreviateHome, footerPayload, formatTokens, modelText, usageParts } from './footer';

describe('footer', () => {
  test.each([
    [0, '0'],
    [950, '950'],
    [3400, '3.4k'],
    [12_345, '12k'],
    [1_234_567, '1.2M'],
    [12_345_678, '12M'],
  ])('%d tokens → %s', (n, text) => expect(formatTokens(n)).toBe(text));

  test('usage parts as psi shows them: only what is non-zero, then the context share of the window', () => {
    const input = { sessionId: 's', projectPath: '/p', model: 'anthropic/claude-sonnet-4-5', thinkingLevel: 'high', usage: { input: 12_000, output: 3_400, cache_read: 0, cache_write: 0, cost_usd: 0.0412 }, context: { share: 0.31, window: 200_000 } };
    expect(usageParts(input)).toEqual(['↑12k', '↓3.4k', '$0.041', '31%/200k']);
    expect(usageParts({ ...input, usage: { input: 0, output: 0, cache_read: 5000, cache_write: 100, cost_usd: 0 }, context: { share: 0, window: 0 } })).toEqual(['CR5.0k', 'CW100', '?']);
  });

  test('model text and path line', () => {
    expect(modelText('scripted/echo', 'off')).toBe('(scripted) echo • thinking off');
    expect(abbreviateHome('/home/ada/src/app', '/home/ada')).toBe('~/src/app');
    expect(abbreviateHome('/home/adam/x', '/home/ada')).toBe('/home/adam/x');
    const p = footerPayload({ sessionId: 's1', projectPath: '/home/ada/app', sessionName: 'fix bug', model: 'scripted/echo', thinkingLevel: 'low', usage: { input: 10, output: 2, cache_read: 0, cache_write: 0, cost_usd: 0 }, context: { share: 0.004, window: 200_000 } }, '/home/ada');
    expect(p).toEqual({
      'session-id': 's1',
      'path-line': '~/app • fix bug',
      'usage-parts': ['↑10', '↓2', '0%/200k'],
      'model-text': '(scripted) echo • thinking low',
      'stats-line': '↑10 ↓2 0%/200k  (scripted) echo • thinking low',
    });
  });
});
