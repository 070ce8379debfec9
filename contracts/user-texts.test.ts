import { budgetCapsText, compactionNotice, compactResultText, retryNotice } from './user-texts';

test('a retry after a worker stopped says so without internals', () => {
  const text = retryNotice({ attempt: 2, max_attempts: 5, delay_ms: 1500, kind: 'infrastructure', reason: 'the worker running this streamModelStep (vm-7f3a) died' });
  expect(text).toBe('The model call was interrupted (the worker running it stopped); retrying (attempt 2/5) in 1.5 s…');
  expect(text).not.toMatch(/streamModelStep|vm-7f3a/);
});

test("a provider's failure keeps the provider's reason; an unknown kind hides the reason", () => {
  expect(retryNotice({ attempt: 1, delay_ms: 3000, kind: 'rate_limited', reason: '429 Too Many Requests' })).toBe('The model provider is limiting requests (429 Too Many Requests); retrying (attempt 1) in 3.0 s…');
  expect(retryNotice({ attempt: 1, delay_ms: 0, kind: 'overloaded', reason: '529' })).toBe('The model provider is overloaded (529); retrying (attempt 1) in 0.0 s…');
  expect(retryNotice({ attempt: 3, delay_ms: 500, kind: 'transient', reason: 'socket hang up' })).toBe('The model call failed (socket hang up); retrying (attempt 3) in 0.5 s…');
  expect(retryNotice({ attempt: 1, delay_ms: 500, reason: 'the worker running this runTool (w1) died' })).toBe('The model call was interrupted; retrying (attempt 1) in 0.5 s…');
});

test('compaction texts', () => {
  expect(compactionNotice(12000)).toBe('The conversation was compacted to free context (12000 tokens before).');
  expect(compactResultText({ compacted: true, tokens_before: 900, tokens_after: 100 })).toBe('Compacted: 900 → 100 tokens.');
  expect(compactResultText({ compacted: false })).toBe('Nothing to compact yet: the conversation is still short.');
});

test('budget caps', () => {
  expect(budgetCapsText({ max_cost_usd: 5, max_tokens: 1000 })).toBe('$5 · 1000 tokens');
  expect(budgetCapsText({ max_cost_usd: null, max_tokens: 1000 })).toBe('1000 tokens');
  expect(budgetCapsText(undefined)).toBe('none');
});
