import { ContinuationJoin, holdTrailingWhitespace, joinContinuation } from './prefill';
import type { ProviderChunk } from './types';

/** Joining a continuation to a prefill whose trailing whitespace the API would not take. */

async function* chunks(...texts: Array<string | ProviderChunk>): AsyncGenerator<ProviderChunk> {
  for (const t of texts) yield typeof t === 'string' ? { type: 'text_delta', text: t } : t;
}
async function textOf(it: AsyncIterable<ProviderChunk>): Promise<string> {
  let out = '';
  for await (const c of it) if (c.type === 'text_delta') out += c.text;
  return out;
}

test('the trailing whitespace is held back, the rest is sent', () => {
  expect(holdTrailingWhitespace('Hello world \n')).toEqual({ sent: 'Hello world', held: ' \n' });
  expect(holdTrailingWhitespace('Hello')).toEqual({ sent: 'Hello', held: '' });
  expect(holdTrailingWhitespace('  ')).toEqual({ sent: '', held: '  ' });
});

test('a continuation that repeats the held whitespace loses it once, even split across deltas', async () => {
  expect(await textOf(joinContinuation(chunks(' again', ' and'), ' '))).toBe('again and');
  expect(await textOf(joinContinuation(chunks('\n', '\nNext'), '\n\n'))).toBe('Next');
  // prefill 'Hello ' (client has it) + continuation ' world' = what the model meant: 'Hello world'.
  expect('Hello ' + (await textOf(joinContinuation(chunks(' world'), ' ')))).toBe('Hello world');
});

test('whitespace that differs, or a continuation that starts with a word, is kept as sent', async () => {
  expect(await textOf(joinContinuation(chunks('\nList:'), ' '))).toBe('\nList:');
  expect(await textOf(joinContinuation(chunks('again'), ' '))).toBe('again');
  // Matching stops at the first chunk that is not text.
  const call: ProviderChunk = { type: 'tool_call_start', id: 'c1', name: 'read_file' };
  expect(await textOf(joinContinuation(chunks(call, ' later'), ' '))).toBe(' later');
});

test('nothing held: every delta passes unchanged, other chunks too, in order', async () => {
  const out: ProviderChunk[] = [];
  const done: ProviderChunk = { type: 'done', stop_reason: 'end', usage: { input: 1, output: 1, cache_read: 0, cache_write: 0 } };
  for await (const c of joinContinuation(chunks(' a', 'b', done), '')) out.push(c);
  expect(out).toEqual([{ type: 'text_delta', text: ' a' }, { type: 'text_delta', text: 'b' }, done]);
});

test('ContinuationJoin keeps matching across empty and partial deltas', () => {
  const join = new ContinuationJoin(' \n');
  expect(join.take('')).toBe('');
  expect(join.take(' ')).toBe('');
  expect(join.take('\nok')).toBe('ok');
  expect(join.take(' ')).toBe(' ');
});
