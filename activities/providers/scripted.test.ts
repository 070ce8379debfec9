import { createScriptedProvider, splitIntoDeltas } from './scripted';
import { ProviderError, type ProviderChunk } from './types';

async function collect(it: AsyncIterable<ProviderChunk>): Promise<ProviderChunk[]> {
  const out: ProviderChunk[] = [];
  for await (const c of it) out.push(c);
  return out;
}

describe('scripted provider', () => {
  test('echo streams "You said: <last user text>" as several deltas, then done', async () => {
    const provider = createScriptedProvider();
    const chunks = await collect(
      provider.stream({
        model: 'echo',
        thinking_level: 'off', system: '', tools: [],
        signal: new AbortController().signal,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'old' }] },
          { role: 'assistant', content: [{ type: 'text', text: 'You said: old' }] },
          { role: 'user', content: [{ type: 'text', text: 'hello  there\nfriend' }] },
        ],
      }),
    );
    const deltas = chunks.filter((c) => c.type === 'text_delta').map((c) => (c as { text: string }).text);
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.join('')).toBe('You said: hello  there\nfriend');
    expect(chunks[chunks.length - 1]).toMatchObject({ type: 'done', stop_reason: 'end', usage: { output: deltas.length } });
  });

  test('an unknown script is a permanent provider error naming the known ones', async () => {
    const provider = createScriptedProvider();
    const run = collect(provider.stream({ model: 'nope', thinking_level: 'off', system: '', tools: [], signal: new AbortController().signal, messages: [] }));
    await expect(run).rejects.toThrow(ProviderError);
    await expect(run).rejects.toThrow(/known: echo/);
  });

  test('aborting stops the stream with the signal reason', async () => {
    const provider = createScriptedProvider({ deltaDelayMs: 20 });
    const controller = new AbortController();
    const seen: ProviderChunk[] = [];
    const run = (async () => {
      for await (const c of provider.stream({ model: 'echo', thinking_level: 'off', system: '', tools: [], signal: controller.signal, messages: [{ role: 'user', content: [{ type: 'text', text: 'a b c d e f g h' }] }] })) {
        seen.push(c);
        if (seen.length === 2) controller.abort(new Error('stop now'));
      }
    })();
    await expect(run).rejects.toThrow('stop now');
    expect(seen.length).toBe(2);
  });

  test('splitIntoDeltas keeps every character', () => {
    const text = '  a bb\tccc \n d ';
    expect(splitIntoDeltas(text).join('')).toBe(text);
    expect(splitIntoDeltas('')).toEqual([]);
  });
});
