import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { createStreamModelStep } from '../../activities/providers/stream-model-step';
import { ProviderRegistry } from '../../activities/providers/registry';
import { ProviderError, type ModelProvider, type ProviderChunk } from '../../activities/providers/types';
import { memoryPublishedText } from '../../activities/events/published-text';
import { approvalPolicySchema } from '../../contracts/session-settings';
import { memoryStorePort, recordingPublisher } from '../harness/memory-store-port';

/**
 * The model-step activity against the store's real domain logic and a provider scripted in the test:
 * streaming, storing content blocks, a retried step continuing the published answer (or resetting the
 * stream when it cannot), idempotency, typed failures, the stall watchdog and cancellation (partial
 * answer recorded as `aborted`).
 */
const usage = { input: 10, output: 5, cache_read: 2, cache_write: 0 };

function provider(script: (signal: AbortSignal) => AsyncIterable<ProviderChunk>): ModelProvider & { calls: number } {
  const p = {
    id: 'test',
    calls: 0,
    stream: (req: { signal: AbortSignal }) => {
      p.calls += 1;
      return script(req.signal);
    },
  };
  return p as ModelProvider & { calls: number };
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason);
    });
  });

async function setup(p: ModelProvider, opts: { stallMs?: number } = {}) {
  const { port, store } = await memoryStorePort();
  const { session_id } = await store.create({ metadata: {} });
  await store.append({ session_id, entry_id: 't1:user', message: { role: 'user', content: [{ type: 'text', text: 'hi' }], timestamp: 1 } });
  const events = recordingPublisher();
  const publishedText = memoryPublishedText(events.events);
  const step = createStreamModelStep({ store: port, events, providers: new ProviderRegistry([p]), price: () => 0.25, heartbeatMs: 20, stallMs: opts.stallMs ?? 5_000, publishedText });
  const input = { session_id, project_path: '/p', turn_id: 't1', step: 0, attempt: 1, model: 'test/m', thinking_level: 'off' as const, approval: approvalPolicySchema.parse({}) };
  return { store, events, step, input, session_id };
}

test('streams deltas, stores the content blocks, announces message and priced usage, returns ids only', async () => {
  const p = provider(async function* () {
    yield { type: 'thinking_delta', text: 'hmm' };
    yield { type: 'thinking_signature', signature: 'sig' };
    yield { type: 'text_delta', text: 'Hel' };
    yield { type: 'text_delta', text: 'lo' };
    yield { type: 'tool_call_start', id: 'c1', name: 'read_file' };
    yield { type: 'tool_call_delta', id: 'c1', arguments_delta: '{"path":' };
    yield { type: 'tool_call_end', id: 'c1', arguments: { path: 'a.ts' } };
    yield { type: 'done', stop_reason: 'function_call', usage };
  });
  const { store, events, step, input, session_id } = await setup(p);
  const result = await new MockActivityEnvironment().run(step, input);
  expect(result).toEqual({ entry_id: 't1:s0:assistant', stop_reason: 'function_call', tool_calls: [{ id: 'c1', name: 'read_file', requires_approval: true, label: 'a.ts' }], context_tokens: 17, context_window: 128_000 });
  const stored = store.getMessage({ session_id, entry_id: 't1:s0:assistant' })!.entry as any;
  expect(stored.message.content).toEqual([
    { type: 'thinking', text: 'hmm', signature: 'sig' },
    { type: 'text', text: 'Hello' },
    { type: 'function_call', id: 'c1', function_id: 'read_file', arguments: { path: 'a.ts' } },
  ]);
  expect(stored.message).toMatchObject({ provider: 'test', model: 'm', stop_reason: 'function_call', usage: { input: 10, output: 5, cache_read: 2, cost_usd: 0.25 } });
  expect(events.events.map((e) => e.event.type)).toEqual(['assistant.thinking_delta', 'assistant.delta', 'assistant.delta', 'assistant.message', 'usage', 'tool.call', 'approval.requested']);
  expect(events.events[5]!.event).toMatchObject({ type: 'tool.call', tool_call_id: 'c1', tool: 'read_file', params: { path: 'a.ts' }, requires_approval: true });
  expect(events.events[6]!.event).toMatchObject({ type: 'approval.requested', tool_call_id: 'c1', timeout_s: 600 });
  expect(events.events[3]!.event).toMatchObject({ type: 'assistant.message', text: 'Hello', stop_reason: 'function_call' });
});

test('a retried attempt resets the stream first; a step already stored is announced, not asked again', async () => {
  const p = provider(async function* () {
    yield { type: 'text_delta', text: 'ok' };
    yield { type: 'done', stop_reason: 'end', usage };
  });
  const { events, step, input } = await setup(p);
  await new MockActivityEnvironment().run(step, { ...input, attempt: 2 });
  expect(events.events[0]!.event).toEqual({ type: 'stream.reset', turn_id: 't1', step: 0 });
  await new MockActivityEnvironment().run(step, { ...input, attempt: 3 });
  expect(p.calls).toBe(1);
});

test('a first try asks the store nothing before the prompt\'s append; a step Temporal tried before finds its stored answer', async () => {
  const p = provider(async function* () {
    yield { type: 'text_delta', text: 'ok' };
    yield { type: 'done', stop_reason: 'end', usage };
  });
  const { port, store } = await memoryStorePort();
  const { session_id } = await store.create({ metadata: {} });
  const requests: string[] = [];
  const recorded: typeof port = {
    ...port,
    get: (r) => (requests.push('get'), port.get(r)),
    messages: (r) => (requests.push('messages'), port.messages(r)),
    getMessage: (r) => (requests.push('getMessage'), port.getMessage(r)),
    append: (r) => (requests.push(`append ${r.entry_id}`), port.append(r)),
    setMeta: (r) => (requests.push('setMeta'), port.setMeta(r)),
  };
  const events = recordingPublisher();
  const step = createStreamModelStep({ store: recorded, events, providers: new ProviderRegistry([p]), heartbeatMs: 20, stallMs: 5_000, publishedText: memoryPublishedText(events.events) });
  const input = { session_id, project_path: '/p', turn_id: 't1', step: 0, attempt: 1, model: 'test/m', thinking_level: 'off' as const, approval: approvalPolicySchema.parse({}), begin: { text: 'hi', last_turn: 1, requests: [] } };
  await new MockActivityEnvironment().run(step, input);
  // The prompt's append is the step's first request (the first delta waits for it), and nothing asks for an earlier answer.
  expect(requests[0]).toBe('append t1:user');
  expect(requests).not.toContain('getMessage');
  expect(p.calls).toBe(1);
  // The same step again as Temporal's second attempt of it (the turn's attempt still 1): it looks first, finds the answer, does not ask the model.
  requests.length = 0;
  const again = await new MockActivityEnvironment({ attempt: 2 }).run(step, input);
  expect(requests[0]).toBe('getMessage');
  expect(p.calls).toBe(1);
  expect(again).toMatchObject({ entry_id: 't1:s0:assistant', stop_reason: 'end' });
});

/** A provider that continues prefills: attempt 1 says `first` then fails; later calls say `rest` after whatever prefill they got. */
function continuing(first: ProviderChunk[], rest: string[], opts: { canContinue?: boolean } = {}) {
  const prefills: Array<string | undefined> = [];
  const p: ModelProvider = {
    id: 'test',
    canContinue: () => opts.canContinue ?? true,
    async *stream(req) {
      prefills.push(req.prefill);
      if (prefills.length === 1) {
        yield* first;
        throw new ProviderError('transient', 'test: connection dropped', { provider: 'test' });
      }
      for (const text of rest) yield { type: 'text_delta', text };
      yield { type: 'done', stop_reason: 'end', usage };
    },
  };
  return { p, prefills };
}
const joinedDeltas = (events: { event: { type: string; text?: string } }[]) => events.flatMap((e) => (e.event.type === 'assistant.delta' ? [e.event.text!] : [])).join('');

test('a retried step continues the published answer: no reset, only the rest is streamed, the whole is stored once', async () => {
  const { p, prefills } = continuing([{ type: 'text_delta', text: 'Hello ' }, { type: 'text_delta', text: 'wor' }], ['ld', '!']);
  const { store, events, step, input, session_id } = await setup(p);
  await expect(new MockActivityEnvironment().run(step, input)).rejects.toMatchObject({ type: 'provider.transient' });
  await new MockActivityEnvironment().run(step, { ...input, attempt: 2 });
  expect(prefills).toEqual([undefined, 'Hello wor']);
  expect(events.events.some((e) => e.event.type === 'stream.reset')).toBe(false);
  expect(events.events.filter((e) => e.event.type === 'assistant.delta').map((e) => [e.id, (e.event as { text: string }).text])).toEqual([
    ['t1:s0:a1:c1', 'Hello '],
    ['t1:s0:a1:c2', 'wor'],
    ['t1:s0:a2:c1', 'ld'],
    ['t1:s0:a2:c2', '!'],
  ]);
  // A client that only joins deltas holds exactly the stored answer.
  const stored = store.getMessage({ session_id, entry_id: 't1:s0:assistant' })!.entry as any;
  expect(stored.message.content).toEqual([{ type: 'text', text: 'Hello world!' }]);
  expect(joinedDeltas(events.events)).toBe('Hello world!');
  expect(events.events.find((e) => e.event.type === 'assistant.message')!.event).toMatchObject({ text: 'Hello world!', stop_reason: 'end' });
});

test('a continuation that fails too is continued again from both attempts\' text', async () => {
  let call = 0;
  const prefills: Array<string | undefined> = [];
  const p: ModelProvider = {
    id: 'test',
    canContinue: () => true,
    async *stream(req) {
      call += 1;
      prefills.push(req.prefill);
      yield { type: 'text_delta', text: `part${call} ` };
      if (call < 3) throw new ProviderError('transient', 'test: dropped', { provider: 'test' });
      yield { type: 'done', stop_reason: 'end', usage };
    },
  };
  const { store, events, step, input, session_id } = await setup(p);
  for (const attempt of [1, 2]) await new MockActivityEnvironment().run(step, { ...input, attempt }).catch(() => undefined);
  await new MockActivityEnvironment().run(step, { ...input, attempt: 3 });
  expect(prefills).toEqual([undefined, 'part1 ', 'part1 part2 ']);
  expect((store.getMessage({ session_id, entry_id: 't1:s0:assistant' })!.entry as any).message.content).toEqual([{ type: 'text', text: 'part1 part2 part3 ' }]);
  expect(joinedDeltas(events.events)).toBe('part1 part2 part3 ');
});

test.each([
  ['the model cannot continue', [{ type: 'text_delta', text: 'Hello ' }] as ProviderChunk[], false],
  ['the earlier attempt streamed thinking', [{ type: 'thinking_delta', text: 'hmm' }, { type: 'text_delta', text: 'Hello ' }] as ProviderChunk[], true],
  ['a tool call was streamed before the text', [{ type: 'tool_call_start', id: 'c1', name: 'read_file' }, { type: 'text_delta', text: 'Hello ' }] as ProviderChunk[], true],
])('fallback when %s: stream.reset first, then the whole answer, no prefill', async (_why, first, canContinue) => {
  const { p, prefills } = continuing(first, ['Hello ', 'again'], { canContinue });
  const { store, events, step, input, session_id } = await setup(p);
  await new MockActivityEnvironment().run(step, input).catch(() => undefined);
  const before = events.events.length;
  await new MockActivityEnvironment().run(step, { ...input, attempt: 2 });
  expect(prefills).toEqual([undefined, undefined]);
  expect(events.events[before]!).toMatchObject({ id: 't1:s0:a2:reset', attempt: 2, event: { type: 'stream.reset', turn_id: 't1', step: 0 } });
  expect(joinedDeltas(events.events.slice(before))).toBe('Hello again');
  expect((store.getMessage({ session_id, entry_id: 't1:s0:assistant' })!.entry as any).message.content).toEqual([{ type: 'text', text: 'Hello again' }]);
});

test('provider failures leave typed and non-retryable, with the requested wait', async () => {
  const p = provider(async function* () {
    yield { type: 'text_delta', text: 'x' };
    throw new ProviderError('rate_limited', 'test: 429 slow down', { provider: 'test', status: 429, retryAfterMs: 1500 });
  });
  const { step, input } = await setup(p);
  const err = await new MockActivityEnvironment().run(step, input).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ApplicationFailure);
  expect(err).toMatchObject({ type: 'provider.rate_limited', nonRetryable: true, details: [{ provider: 'test', status: 429, retry_after_ms: 1500 }] });
});

test('a stream that stalls is abandoned as transient by the watchdog', async () => {
  let providerSignal: AbortSignal | undefined;
  const p = provider(async function* (signal) {
    providerSignal = signal;
    yield { type: 'text_delta', text: 'x' };
    await sleep(60_000, signal);
  });
  const { step, input } = await setup(p, { stallMs: 200 });
  // The stalled stream is cut by the watchdog (its request aborted), not waited out: without the
  // watchdog this would outlast the test's timeout.
  const err = await new MockActivityEnvironment().run(step, input).catch((e: unknown) => e);
  expect(err).toMatchObject({ type: 'provider.transient' });
  expect((err as Error).message).toMatch(/stalled/);
  expect(providerSignal?.aborted).toBe(true);
});

test('cancellation records exactly what was streamed, as aborted, then propagates', async () => {
  const p = provider(async function* (signal) {
    yield { type: 'text_delta', text: 'partial ' };
    yield { type: 'text_delta', text: 'answer' };
    await sleep(60_000, signal);
  });
  const { store, events, step, input, session_id } = await setup(p);
  const env = new MockActivityEnvironment();
  let beats = 0;
  env.on('heartbeat', () => void beats++);
  const run = env.run(step, input);
  await sleep(200);
  env.cancel();
  const err = await run.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(CancelledFailure);
  expect(beats).toBeGreaterThan(2);
  const stored = store.getMessage({ session_id, entry_id: 't1:s0:assistant' })!.entry as any;
  expect(stored.message).toMatchObject({ stop_reason: 'aborted', content: [{ type: 'text', text: 'partial answer' }] });
  expect(events.events[events.events.length - 1]!.event).toMatchObject({ type: 'assistant.message', stop_reason: 'aborted', text: 'partial answer' });
});

test('a cancellation that comes before the provider is called (the step still reading the store) stops the step', async () => {
  const p = provider(async function* (signal) {
    await sleep(60_000, signal);
    yield { type: 'text_delta', text: 'too late' };
  });
  const { step, input } = await setup(p);
  const env = new MockActivityEnvironment();
  const run = env.run(step, input);
  // At once: the activity is still in its first awaits, before it links its cancellation to the stream.
  env.cancel();
  expect(await run.catch((e: unknown) => e)).toBeInstanceOf(CancelledFailure);
});

test('a model the catalog does not know is said once per session and model, not before every turn', async () => {
  const p = provider(async function* () {
    yield { type: 'text_delta', text: 'ok' };
    yield { type: 'done', stop_reason: 'end', usage };
  });
  const { port, store } = await memoryStorePort();
  const { session_id } = await store.create({ metadata: {} });
  const events = recordingPublisher();
  const step = createStreamModelStep({ store: port, events, providers: new ProviderRegistry([p]), price: () => 0, heartbeatMs: 20, stallMs: 5_000, publishedText: memoryPublishedText(events.events), modelInfo: () => ({ context_window: 128_000, max_output_tokens: 8_192, known: false }) });
  const turn = async (turnId: string, model: string) => {
    await store.append({ session_id, entry_id: `${turnId}:user`, message: { role: 'user', content: [{ type: 'text', text: 'hi' }], timestamp: 1 } });
    await new MockActivityEnvironment().run(step, { session_id, project_path: '/p', turn_id: turnId, step: 0, attempt: 1, model, thinking_level: 'off' as const, approval: approvalPolicySchema.parse({}) });
  };
  const told = () => events.events.filter((e) => e.event.type === 'notice').map((e) => `${e.turn_id}: ${(e.event as { message: string }).message.split(' ')[0]}`);
  await turn('t1', 'test/local-a');
  await turn('t2', 'test/local-a');
  await turn('t3', 'test/local-b');
  await turn('t4', 'test/local-b');
  expect(told()).toEqual(['t1: test/local-a', 't3: test/local-b']);
});

/**
 * The conversation is read beside the turn's first writes (one store round trip less before the first
 * delta): whichever the store answers first, the model gets the prompt exactly once, after the earlier
 * turns, and nothing is published before the writes are durable. `first` picks which call the store
 * answers first; the other waits for it.
 */
test.each(['read', 'append'] as const)('step 0 sends the prompt once and streams after the turn is recorded, the store answering the %s first', async (first) => {
  const sent: Array<{ role: string; text: string }[]> = [];
  const p: ModelProvider = {
    id: 'test',
    async *stream(req) {
      sent.push(req.messages.map((m) => ({ role: m.role, text: m.content.map((b) => (b.type === 'text' ? b.text : '')).join('') })));
      yield { type: 'text_delta', text: 'sure' };
      yield { type: 'done', stop_reason: 'end', usage };
    },
  };
  const { port, store } = await memoryStorePort();
  const { session_id } = await store.create({ metadata: {} });
  await store.append({ session_id, entry_id: 't1:user', message: { role: 'user', content: [{ type: 'text', text: 'hi' }], timestamp: 1 } });
  await store.append({ session_id, entry_id: 't1:s0:assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'hello' }], provider: 'test', model: 'm', stop_reason: 'end', timestamp: 2 } });
  let readDone!: () => void;
  let appendDone!: () => void;
  const read = new Promise<void>((r) => (readDone = r));
  const appended = new Promise<void>((r) => (appendDone = r));
  // Code that reads only after its writes would wait forever here: the wait gives up (and the test fails on the order).
  const orGiveUp = (p: Promise<void>) => Promise.race([p, new Promise<void>((r) => setTimeout(r, 5_000))]);
  const order: string[] = [];
  const ordered: typeof port = {
    ...port,
    messages: async (r) => {
      if (first === 'append') await orGiveUp(appended);
      const page = await port.messages(r);
      order.push('read');
      readDone();
      return page;
    },
    append: async (r) => {
      if (first === 'read' && r.entry_id === 't2:user') await orGiveUp(read);
      const out = await port.append(r);
      if (r.entry_id === 't2:user') {
        order.push('append');
        appendDone();
      }
      return out;
    },
  };
  const events = recordingPublisher();
  const step = createStreamModelStep({ store: ordered, events, providers: new ProviderRegistry([p]), heartbeatMs: 20, stallMs: 5_000, publishedText: memoryPublishedText(events.events) });
  const input = { session_id, project_path: '/p', turn_id: 't2', step: 0, attempt: 1, model: 'test/m', thinking_level: 'off' as const, approval: approvalPolicySchema.parse({}), begin: { text: 'again', last_turn: 2, requests: [] } };
  await new MockActivityEnvironment().run(step, input);
  expect(order).toEqual(first === 'read' ? ['read', 'append'] : ['append', 'read']);
  // A retried attempt finds the prompt stored: still once.
  await new MockActivityEnvironment().run(step, { ...input, attempt: 2 });
  const conversation = [
    { role: 'user', text: 'hi' },
    { role: 'assistant', text: 'hello' },
    { role: 'user', text: 'again' },
  ];
  expect(sent).toEqual([conversation]);
  expect(store.getMessage({ session_id, entry_id: 't2:user' })!.entry).toMatchObject({ message: { role: 'user', content: [{ type: 'text', text: 'again' }] } });
  expect(events.events.map((e) => e.event.type).slice(0, 2)).toEqual(['turn.started', 'assistant.delta']);
});

/**
 * The turn counter's write (only a session re-created from the store reads it) is not on the way to the
 * first delta: the step streams while it is pending and records and announces its answer only once it
 * is durable.
 */
test('step 0 streams before the turn counter is written, and records its answer only after', async () => {
  const p = provider(async function* () {
    yield { type: 'text_delta', text: 'sure' };
    yield { type: 'done', stop_reason: 'end', usage };
  });
  const { port, store } = await memoryStorePort();
  const { session_id } = await store.create({ metadata: {} });
  const order: string[] = [];
  let firstDelta!: () => void;
  const streamed = new Promise<void>((r) => (firstDelta = r));
  const events = recordingPublisher();
  const publisher: typeof events = {
    ...events,
    publish: async (sid, batch) => {
      for (const e of batch) order.push(e.event.type);
      if (batch.some((e) => e.event.type === 'assistant.delta')) firstDelta();
      await events.publish(sid, batch);
    },
  };
  const counted: typeof port = {
    ...port,
    setMeta: async (r) => {
      // Code that wrote the counter before streaming would wait forever here: the wait gives up (and the test fails on the order).
      await Promise.race([streamed, new Promise<void>((r) => setTimeout(r, 5_000))]);
      const out = await port.setMeta(r);
      order.push('counter written');
      return out;
    },
    append: async (r) => {
      const out = await port.append(r);
      order.push(`stored ${r.entry_id}`);
      return out;
    },
  };
  const step = createStreamModelStep({ store: counted, events: publisher, providers: new ProviderRegistry([p]), heartbeatMs: 20, stallMs: 5_000, publishedText: memoryPublishedText(events.events) });
  await new MockActivityEnvironment().run(step, { session_id, project_path: '/p', turn_id: 't1', step: 0, attempt: 1, model: 'test/m', thinking_level: 'off' as const, approval: approvalPolicySchema.parse({}), begin: { text: 'hi', last_turn: 1, requests: [] } });
  expect(order).toEqual(['turn.started', 'stored t1:user', 'assistant.delta', 'counter written', 'stored t1:s0:assistant', 'assistant.message', 'usage']);
  expect(store.get({ session_id })!.meta.metadata).toMatchObject({ 'strand.last_turn': 1 });
});

/**
 * The provider is asked while the prompt's append is in flight (the model's time to its first token
 * overlaps the store's write), but nothing of the step is published before the prompt is stored and
 * `turn.started` is out, and the step does not end before the append has settled: a failed append
 * fails the step as the store's fault, with no delta published.
 */
describe('step 0 and the prompt\'s append', () => {
  const begin = { text: 'hi', last_turn: 1, requests: [] };
  async function heldAppend(p: ModelProvider & { calls: number }, release: () => Promise<void>) {
    const { port, store } = await memoryStorePort();
    const { session_id } = await store.create({ metadata: {} });
    const order: string[] = [];
    const events = recordingPublisher();
    const publisher: typeof events = {
      ...events,
      publish: async (sid, batch) => {
        for (const e of batch) order.push(e.event.type);
        await events.publish(sid, batch);
      },
    };
    const held: typeof port = {
      ...port,
      append: async (r) => {
        if (r.entry_id === 't1:user') {
          // Code that asked the provider only after this append would wait forever here: the wait gives up (and the test fails on the order).
          const deadline = Date.now() + 5_000;
          while (p.calls === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
          order.push(`provider asked ${p.calls}`);
          await release();
        }
        const out = await port.append(r);
        order.push(`stored ${r.entry_id}`);
        return out;
      },
    };
    const step = createStreamModelStep({ store: held, events: publisher, providers: new ProviderRegistry([p]), heartbeatMs: 20, stallMs: 5_000, publishedText: memoryPublishedText(events.events) });
    const input = { session_id, project_path: '/p', turn_id: 't1', step: 0, attempt: 1, model: 'test/m', thinking_level: 'off' as const, approval: approvalPolicySchema.parse({}), begin };
    return { step, input, order, store, session_id };
  }

  test('the provider streams before the prompt is stored; its deltas are published after it', async () => {
    const p = provider(async function* () {
      yield { type: 'text_delta', text: 'sure' };
      yield { type: 'done', stop_reason: 'end', usage };
    });
    const { step, input, order } = await heldAppend(p, async () => undefined);
    await new MockActivityEnvironment().run(step, input);
    expect(order.slice(0, 4)).toEqual(['turn.started', 'provider asked 1', 'stored t1:user', 'assistant.delta']);
    expect(order.slice(-3)).toEqual(['stored t1:s0:assistant', 'assistant.message', 'usage']);
  });

  test('a provider that fails at once: the step still ends only after the prompt is stored', async () => {
    const p = provider(async function* () {
      yield* [];
      throw new ProviderError('auth', 'bad key', { provider: 'test' });
    });
    const { step, input, order } = await heldAppend(p, () => new Promise((r) => setTimeout(r, 50)));
    await expect(new MockActivityEnvironment().run(step, input)).rejects.toMatchObject({ type: 'provider.auth' });
    expect(order).toContain('stored t1:user');
  });

  test('a failed append fails the step as strand\'s own fault, and no delta is published', async () => {
    const p = provider(async function* () {
      yield { type: 'text_delta', text: 'sure' };
      yield { type: 'done', stop_reason: 'end', usage };
    });
    const { StoreError, StoreErrorCode } = await import('../../contracts/session-store/errors');
    const { step, input, order } = await heldAppend(p, async () => {
      throw new StoreError(StoreErrorCode.STORAGE, 'the store is down');
    });
    await expect(new MockActivityEnvironment().run(step, input)).rejects.toMatchObject({ type: 'infra.unavailable' });
    expect(order).not.toContain('assistant.delta');
    expect(order).not.toContain('assistant.message');
  });
});
