import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PACKAGED_SCRIPTS_DIR, listScriptFiles, loadScriptFile } from './script-format';
import { createScriptedProvider, scriptNames, splitIntoDeltas } from './scripted';
import { ProviderError, type ModelProvider, type ProviderChunk, type ProviderMessage } from './types';

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

describe('script files', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-scripts-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const signal = () => new AbortController().signal;
  const user = (text: string): ProviderMessage => ({ role: 'user', content: [{ type: 'text', text }] });
  const run = (provider: ModelProvider, model: string, messages: ProviderMessage[]) =>
    collect(provider.stream({ model, messages, system: '', tools: [], thinking_level: 'off', signal: signal() }));
  const write = (name: string, script: unknown) => fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(script));

  test('every shipped script is valid', () => {
    expect(scriptNames).toEqual(expect.arrayContaining(['echo', 'read-then-answer', 'edit-file', 'rate-limit-once', 'overflow-once', 'slow', 'shell']));
    for (const name of listScriptFiles([PACKAGED_SCRIPTS_DIR])) expect(loadScriptFile(name, [PACKAGED_SCRIPTS_DIR])).toBeDefined();
  });

  test('read-then-answer: step 0 calls read_file, step 1 (after the result) answers from it', async () => {
    const provider = createScriptedProvider();
    const first = await run(provider, 'read-then-answer', [user('what is this project?')]);
    const start = first.find((c) => c.type === 'tool_call_start') as Extract<ProviderChunk, { type: 'tool_call_start' }>;
    expect(start.name).toBe('read_file');
    expect(first.find((c) => c.type === 'tool_call_end')).toMatchObject({ arguments: { path: 'README.md' } });
    expect(first.at(-1)).toMatchObject({ type: 'done', stop_reason: 'function_call' });
    // The same context gives the same call id (a retried step replays identically).
    const again = await run(provider, 'read-then-answer', [user('what is this project?')]);
    expect(again.find((c) => c.type === 'tool_call_start')).toEqual(start);

    const second = await run(provider, 'read-then-answer', [
      user('what is this project?'),
      { role: 'assistant', content: [{ type: 'function_call', id: start.id, function_id: 'read_file', arguments: { path: 'README.md' } }] },
      { role: 'function_result', function_call_id: start.id, function_id: 'read_file', content: [{ type: 'text', text: '# strand\nmore' }], is_error: false },
    ]);
    expect(textOf(second)).toBe('README.md begins with: # strand');
    expect(second.at(-1)).toMatchObject({ stop_reason: 'end' });
  });

  test('rate-limit-once: the first call fails with 429 and retry-after 1 s, the retry answers', async () => {
    const provider = createScriptedProvider();
    const messages = [user('hello once')];
    const err = await run(provider, 'rate-limit-once', messages).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ kind: 'rate_limited', status: 429, retryAfterMs: 1000, provider: 'scripted' });
    expect(textOf(await run(provider, 'rate-limit-once', messages))).toBe('Answered after a rate limit: hello once');
    // Another prompt is another step key: it fails once too.
    await expect(run(provider, 'rate-limit-once', [user('another')])).rejects.toMatchObject({ kind: 'rate_limited' });
  });

  test('overflow-once: context_overflow once, then answers', async () => {
    const provider = createScriptedProvider();
    await expect(run(provider, 'overflow-once', [user('big')])).rejects.toMatchObject({ kind: 'context_overflow', status: 400 });
    expect(textOf(await run(provider, 'overflow-once', [user('big')]))).toContain('Answered after compaction');
  });

  test('STRAND_SCRIPTS_DIR scripts come first; thinking, raw args, usage, stop and on_calls', async () => {
    write('custom', {
      steps: [
        [
          { type: 'error', kind: 'overloaded', on_calls: [2] },
          { type: 'thinking', text: ['hm', 'm'], signature: 'sig' },
          { type: 'text', text: ['a', 'b'] },
          { type: 'tool_call', name: 'shell_exec', raw_args: '{"command":', id: 'c1' },
          { type: 'usage', input: 7, cache_read: 3 },
          { type: 'stop', reason: 'length', native: 'max_tokens' },
        ],
      ],
    });
    const provider = createScriptedProvider({ env: { STRAND_SCRIPTS_DIR: dir } });
    const chunks = await run(provider, 'custom', [user('x')]);
    expect(chunks.map((c) => c.type)).toEqual([
      'thinking_delta', 'thinking_delta', 'thinking_signature', 'text_delta', 'text_delta',
      'tool_call_start', 'tool_call_delta', 'tool_call_delta', 'tool_call_delta', 'tool_call_end', 'done',
    ]);
    expect(chunks.find((c) => c.type === 'tool_call_end')).toEqual({ type: 'tool_call_end', id: 'c1', arguments: {}, invalid_arguments: '{"command":' });
    expect(chunks.at(-1)).toEqual({ type: 'done', stop_reason: 'length', native_stop_reason: 'max_tokens', usage: { input: 7, output: 7, cache_read: 3, cache_write: 0 } });
    await expect(run(provider, 'custom', [user('x')])).rejects.toMatchObject({ kind: 'overloaded', status: 529 });
    await expect(run(provider, 'custom', [user('x')])).resolves.toBeDefined();
  });

  test('call counts in a state folder are shared by provider instances (workers in other processes)', async () => {
    write('flaky', { steps: [[{ type: 'error', kind: 'transient', times: 1 }, { type: 'text', text: 'fine' }]] });
    const state = path.join(dir, 'state');
    const a = createScriptedProvider({ scriptsDir: dir, stateDir: state });
    const b = createScriptedProvider({ scriptsDir: dir, stateDir: state });
    await expect(run(a, 'flaky', [user('q')])).rejects.toMatchObject({ kind: 'transient', status: 503 });
    expect(textOf(await run(b, 'flaky', [user('q')]))).toBe('fine');
    expect(fs.readdirSync(state)).toHaveLength(2);
  });

  test('more calls than steps, unknown names and broken files are permanent errors that say why', async () => {
    write('one', { steps: [[{ type: 'text', text: 'only' }]] });
    write('broken', { steps: [[{ type: 'nope' }]] });
    const provider = createScriptedProvider({ scriptsDir: dir });
    const answered: ProviderMessage[] = [user('q'), { role: 'assistant', content: [{ type: 'text', text: 'only' }] }];
    await expect(run(provider, 'one', answered)).rejects.toThrow(/has 1 step\(s\); this is model call 2/);
    await expect(run(provider, 'missing', [user('q')])).rejects.toThrow(/no script "missing" \(known: .*echo.*one.*read-then-answer/);
    await expect(run(provider, 'broken', [user('q')])).rejects.toMatchObject({ kind: 'permanent', message: expect.stringContaining('broken.json') });
    await expect(run(provider, '..%2Fetc', [user('q')])).rejects.toMatchObject({ kind: 'permanent' });
  });

  test('a prefilled call plays the same step after the prefill, without thinking; the whole is the script\'s text', async () => {
    write('long', {
      steps: [
        [{ type: 'thinking', text: 'plan it' }, { type: 'text', text: 'One two three four.' }, { type: 'tool_call', name: 'read_file', args: { path: 'a' } }],
      ],
    });
    const provider = createScriptedProvider({ scriptsDir: dir });
    const continued = (prefill: string) => collect(provider.stream({ model: 'long', messages: [user('q')], system: '', tools: [], thinking_level: 'off', signal: new AbortController().signal, prefill }));
    // A prefill that ends inside a delta ('thr' of 'three ') continues from the rest of that delta.
    for (const prefill of ['One ', 'One two thr', 'One two three four.']) {
      const chunks = await continued(prefill);
      expect(chunks.some((c) => c.type === 'thinking_delta')).toBe(false);
      expect(prefill + textOf(chunks)).toBe('One two three four.');
      expect(chunks.filter((c) => c.type === 'tool_call_end')).toEqual([{ type: 'tool_call_end', id: expect.any(String), arguments: { path: 'a' } }]);
      expect(chunks.at(-1)).toMatchObject({ type: 'done', stop_reason: 'function_call' });
    }
    expect(textOf(await continued('One two thr')).startsWith('ee ')).toBe(true);
    expect(provider.canContinue?.({ provider: 'scripted', supports: { thinking: false, tools: true, images: false } } as never)).toBe(true);
    expect(provider.canContinue?.({ provider: 'scripted', supports: { thinking: false, tools: true, images: false, prefill: false } } as never)).toBe(false);
  });

  test('a prefill that is not the start of the step\'s text is a permanent error saying so', async () => {
    write('two-texts', { steps: [[{ type: 'text', text: 'Look.' }, { type: 'tool_call', name: 'read_file', args: {} }, { type: 'text', text: 'More.' }]] });
    const provider = createScriptedProvider({ scriptsDir: dir });
    const continued = (prefill: string) => collect(provider.stream({ model: 'two-texts', messages: [user('q')], system: '', tools: [], thinking_level: 'off', signal: new AbortController().signal, prefill }));
    await expect(continued('Nope')).rejects.toMatchObject({ kind: 'permanent', message: expect.stringMatching(/prefill is not the start of script two-texts, step 1's text/) });
    await expect(continued('Look.More.')).rejects.toThrow(/calls read_file before the prefill's end/);
  });

  test('a stall waits until the abort and ends with its reason', async () => {
    write('stall', { steps: [[{ type: 'text', text: 'begin' }, { type: 'stall' }]] });
    const provider = createScriptedProvider({ scriptsDir: dir });
    const controller = new AbortController();
    const seen: ProviderChunk[] = [];
    const reason = new Error('watchdog');
    const done = (async () => {
      for await (const c of provider.stream({ model: 'stall', messages: [user('q')], system: '', tools: [], thinking_level: 'off', signal: controller.signal })) {
        seen.push(c);
        setTimeout(() => controller.abort(reason), 20);
      }
    })();
    await expect(done).rejects.toBe(reason);
    expect(seen).toEqual([{ type: 'text_delta', text: 'begin' }]);
  });
});

function textOf(chunks: ProviderChunk[]): string {
  return chunks.flatMap((c) => (c.type === 'text_delta' ? [c.text] : [])).join('');
}
