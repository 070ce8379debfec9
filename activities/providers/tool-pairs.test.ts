import { pairToolResults } from './tool-pairs';
import type { ProviderMessage } from './types';

/** Contexts the APIs would reject (unanswered calls, orphan results) are repaired before sending. */

const call = (id: string): ProviderMessage => ({ role: 'assistant', content: [{ type: 'function_call', id, function_id: 'read_file', arguments: {} }] });
const result = (id: string): ProviderMessage => ({ role: 'function_result', function_call_id: id, function_id: 'read_file', content: [{ type: 'text', text: 'ok' }], is_error: false });
const user: ProviderMessage = { role: 'user', content: [{ type: 'text', text: 'next' }] };

test('answered calls pass unchanged', () => {
  const messages = [user, call('a'), result('a')];
  expect(pairToolResults(messages)).toEqual(messages);
});

test('an unanswered call gets an error result before the next message, or at the end', () => {
  const repaired = pairToolResults([user, call('a'), user, call('b')]);
  expect(repaired.map((m) => (m.role === 'function_result' ? `result:${m.function_call_id}:${m.is_error}` : m.role))).toEqual([
    'user', 'assistant', 'result:a:true', 'user', 'assistant', 'result:b:true',
  ]);
});

test('a result that answers no call of the previous assistant message is dropped', () => {
  expect(pairToolResults([user, result('ghost'), call('a'), result('a'), result('a')])).toEqual([user, call('a'), result('a')]);
});
