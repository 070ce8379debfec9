import { MockActivityEnvironment } from '@temporalio/testing';
import { createSessionSpent } from '../../activities/budget/session-spent';
import { createCompactSession, type CompactSessionResult } from '../../activities/compaction/compact-session';
import { buildProviderContext } from '../../activities/providers/context';
import { ProviderRegistry } from '../../activities/providers/registry';
import type { ModelProvider, ProviderRequest } from '../../activities/providers/types';
import { memoryStorePort, recordingPublisher } from '../harness/memory-store-port';

/** Compaction against the store's real domain logic and a provider that records what it was asked. */
test('summarises the older part, records the compaction once, and later contexts start from it', async () => {
  const { port, store } = await memoryStorePort();
  const { session_id } = await store.create({ metadata: {} });
  const say = async (id: string, role: 'user' | 'assistant', text: string) =>
    store.append({
      session_id,
      entry_id: id,
      message: role === 'user' ? { role, content: [{ type: 'text', text }], timestamp: 1 } : { role, content: [{ type: 'text', text }], model: 'm', provider: 'p', stop_reason: 'end', timestamp: 1 },
    });
  await say('t1:user', 'user', `first ${'x'.repeat(20_000)}`);
  await say('t1:s0:assistant', 'assistant', 'first answer');
  await say('t2:user', 'user', 'second question');
  await say('t2:s0:assistant', 'assistant', 'second answer');
  const asked: ProviderRequest[] = [];
  const provider: ModelProvider = {
    id: 'test',
    async *stream(req) {
      asked.push(req);
      yield { type: 'text_delta', text: 'The user asked twice.' };
      yield { type: 'done', stop_reason: 'end', usage: { input: 300, output: 40, cache_read: 0, cache_write: 0 } };
    },
  };
  const events = recordingPublisher();
  const compact = createCompactSession({ store: port, events, providers: new ProviderRegistry([provider]), price: (_model, u) => (u.input + u.output) / 1000 });
  const input = { session_id, compaction_id: 'compact:1', model: 'test/m', reason: 'manual' as const, instructions: 'keep names', context_window: 10_000 };
  const result = (await new MockActivityEnvironment().run(compact, input)) as CompactSessionResult;
  expect(result.compacted).toBe(true);
  expect(result.summary).toBe('The user asked twice.');
  expect(result.tokens_after).toBeLessThan(result.tokens_before);
  const request = (asked[0]!.messages[0]!.content[0] as { text: string }).text;
  expect(request).toContain('first x');
  expect(request).toContain('keep names');
  expect(request).not.toContain('second question');

  const ctx = await buildProviderContext(port, session_id);
  expect(ctx.map((m) => (m.content[0] as { text: string }).text.slice(0, 40))).toEqual([
    '[The earlier part of this conversation w',
    'second question',
    'second answer',
  ]);
  const again = (await new MockActivityEnvironment().run(compact, input)) as CompactSessionResult;
  expect(again.compacted).toBe(true);
  expect(asked).toHaveLength(1);
  expect(events.events.map((e) => e.event.type)).toEqual(['compaction.started', 'compaction.finished']);
  expect(events.events[1]!.event).toMatchObject({ summary: 'The user asked twice.' });

  // The summary's model call is paid for: recorded with the compaction, counted in the session's spending (once).
  const record = (await port.messages({ session_id, include_custom: true }))!.messages.find((m) => m.entry_id === 'compact:1')!;
  expect((record.custom!.data as { usage?: unknown }).usage).toEqual({ input: 300, output: 40, cache_read: 0, cache_write: 0, cost_usd: 0.34 });
  expect(await createSessionSpent(port)({ session_id })).toEqual({ cost_usd: 0.34, tokens: 340 });
});
