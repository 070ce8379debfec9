import { historyToSeed } from './chat-session';

const item = (role: 'user' | 'assistant' | 'system', content: string, kind: 'text' | 'status' | 'tool_payload' = 'text') => ({ id: `msg_${content.length}`, role, content, kind, timestamp: '2026-01-02T03:04:05.000Z' });

test('history seeds user and assistant text, without status rows or the message being sent', () => {
  const seeded = historyToSeed([item('system', 'sys'), item('user', 'first'), item('assistant', 'answer', 'tool_payload'), item('assistant', 'working…', 'status'), item('user', 'now')], 'now');
  expect(seeded).toEqual([
    { role: 'user', text: 'first', timestamp: Date.parse('2026-01-02T03:04:05.000Z') },
    { role: 'assistant', text: 'answer', timestamp: Date.parse('2026-01-02T03:04:05.000Z') },
  ]);
  expect(historyToSeed([item('user', 'only')], 'only')).toEqual([]);
  expect(historyToSeed([item('user', 'earlier')], 'other')).toHaveLength(1);
});
