import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { classifyProviderError, retryAfterMsOf, rethrowProviderFailure } from './classify';
import { ProviderError } from './types';

/** Error classification shared by the adapters (the HTTP paths are covered against fake servers in test/providers). */

const headers = (h: Record<string, string>) => new Headers(h);

test('retry-after: retry-after-ms wins, then seconds, then an HTTP date; garbage is ignored', () => {
  const now = () => Date.parse('2025-01-01T00:00:00Z');
  expect(retryAfterMsOf(headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
  expect(retryAfterMsOf(headers({ 'retry-after': '2' }), now)).toBe(2000);
  expect(retryAfterMsOf(headers({ 'retry-after': '1.5' }), now)).toBe(1500);
  expect(retryAfterMsOf(headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:30 GMT' }), now)).toBe(30_000);
  expect(retryAfterMsOf(headers({ 'retry-after': 'Tue, 31 Dec 2024 23:00:00 GMT' }), now)).toBe(0);
  expect(retryAfterMsOf(headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
  expect(retryAfterMsOf(headers({}), now)).toBeUndefined();
});

test('SDK connection errors and timeouts are transient; syntax errors are malformed events', () => {
  expect(classifyProviderError('anthropic', new Anthropic.APIConnectionError({ message: 'x', cause: new Error('ECONNREFUSED') }))).toMatchObject({
    kind: 'transient', message: 'anthropic: connection error: ECONNREFUSED',
  });
  expect(classifyProviderError('openai', new OpenAI.APIConnectionTimeoutError())).toMatchObject({ kind: 'transient', message: 'openai: the request timed out' });
  expect(classifyProviderError('openai', new SyntaxError('Unexpected end of JSON input'))).toMatchObject({ kind: 'transient', message: expect.stringContaining('malformed') });
  expect(classifyProviderError('openai', new TypeError('terminated', { cause: new Error('other side closed') }))).toMatchObject({
    kind: 'transient', message: 'openai: the stream broke off: terminated (other side closed)',
  });
});

test('status, error type and code decide the kind', () => {
  const anthropic = (status: number | undefined, type: string, message: string) =>
    classifyProviderError('anthropic', new Anthropic.APIError(status as number, { type: 'error', error: { type, message } }, undefined, headers({}) as never));
  expect(anthropic(529, 'overloaded_error', 'Overloaded').kind).toBe('overloaded');
  expect(anthropic(undefined, 'overloaded_error', 'Overloaded').kind).toBe('overloaded');
  expect(anthropic(undefined, 'api_error', 'Internal').kind).toBe('transient');
  expect(anthropic(403, 'permission_error', 'no').kind).toBe('auth');
  expect(anthropic(413, 'request_too_large', 'Request exceeds the maximum size').kind).toBe('permanent');
  expect(anthropic(400, 'invalid_request_error', 'input length and `max_tokens` exceed context limit: 190000 + 64000 > 200000').kind).toBe('context_overflow');
  expect(anthropic(502, 'api_error', 'Bad gateway').kind).toBe('transient');
  const openai = new OpenAI.APIError(undefined, { message: 'Rate limit', type: 'tokens', code: 'rate_limit_exceeded' }, undefined, undefined);
  expect(classifyProviderError('openai', openai)).toMatchObject({ kind: 'rate_limited', message: 'openai: stream error tokens: Rate limit' });
});

test('a caller abort rethrows the signal reason unclassified; other errors are classified', () => {
  const controller = new AbortController();
  const reason = new Error('user abort');
  controller.abort(reason);
  expect(() => rethrowProviderFailure('openai', new Anthropic.APIUserAbortError(), controller.signal)).toThrow(reason);
  expect(() => rethrowProviderFailure('openai', new Error('x'), new AbortController().signal)).toThrow(ProviderError);
});
