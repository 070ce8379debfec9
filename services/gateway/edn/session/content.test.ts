import type { Message } from '../../../../contracts/session-store/messages';
import { encodeEdn } from '../codec';
import { type Keyword } from '../edn-value';
import { argsSummary, callSummary, messageToEdn } from './content';

const ts = Date.UTC(2025, 0, 2, 3, 4, 5);
const messages: Message[] = [
  { role: 'user', content: [{ type: 'text', text: 'write "a"\nplease' }], timestamp: ts },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', text: 'hmm' },
      { type: 'text', text: 'Sure.' },
      { type: 'function_call', id: 'c1', function_id: 'write_file', arguments: { path: 'a b.txt', 'weird key!': { 'x y': [1, null] } } },
    ],
    model: 'echo',
    provider: 'scripted',
    stop_reason: 'function_call',
    usage: { input: 3, output: 4, cost_usd: 0 },
    timestamp: ts,
  },
  { role: 'function_result', function_call_id: 'c1', function_id: 'write_file', content: [{ type: 'text', text: 'ok' }], is_error: false, timestamp: ts },
  { role: 'custom', custom_type: 'compaction', content: [{ type: 'text', text: 'summary' }], display: 'Summary', timestamp: ts },
];

describe('messageToEdn', () => {
  test('psi agent messages: roles, keyword block types, tool arguments as a JSON string, ISO timestamps', () => {
    const [user, assistant, result, custom] = messages.map((m, i) => messageToEdn(m, `e${i}`));
    expect(user).toMatchObject({ role: 'user', text: 'write "a"\nplease', timestamp: '2025-01-02T03:04:05.000Z', 'entry-id': 'e0' });
    expect(assistant).toMatchObject({ role: 'assistant', text: 'Sure.', provider: 'scripted', model: 'echo', usage: { input: 3, output: 4, 'total-tokens': 7 } });
    expect((assistant!['stop-reason'] as Keyword).name).toBe('tool-use');
    const blocks = assistant!.content as Array<Record<string, unknown>>;
    expect(blocks.map((b) => (b.type as Keyword).name)).toEqual(['thinking', 'text', 'tool-call']);
    expect(JSON.parse(blocks[2]!.arguments as string)).toEqual({ path: 'a b.txt', 'weird key!': { 'x y': [1, null] } });
    expect(result).toMatchObject({ role: 'toolResult', 'tool-call-id': 'c1', 'tool-name': 'write_file', 'is-error': false });
    expect(custom).toMatchObject({ role: 'custom', 'custom-type': 'compaction', text: 'Summary' });
  });

  test('every converted message goes through the wire encoder (no key that is not a keyword) on one line', () => {
    for (const m of messages) {
      const line = encodeEdn(messageToEdn(m, 'e1'));
      expect(line).not.toContain('\n');
    }
  });
});

describe('summaries', () => {
  test('what a call works on: command, path or pattern first, else its arguments, clipped', () => {
    expect(argsSummary({ command: 'ls  -la\n/tmp' })).toBe('ls -la /tmp');
    expect(argsSummary({ path: 'README.md', content: 'x' })).toBe('README.md');
    expect(argsSummary({})).toBe('');
    expect(argsSummary({ n: 'x'.repeat(500) }).length).toBe(120);
    expect(callSummary('read_file', { path: 'a' })).toBe('read_file a');
  });
});
