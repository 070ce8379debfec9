import type { HttpEventData } from '../../contracts/http-events';
import { ChatView } from './chat-view';
import { blocksOfHistory } from './stored-history';

const delta = (turn: string, step: number, content: string, attempt = 1): HttpEventData => ({ type: 'message.delta', content, role: 'assistant', turn_id: turn, step, attempt });
const finished = (turn: string, outcome: 'done' | 'error' | 'aborted' = 'done'): HttpEventData => ({ type: 'turn.finished', turn_id: turn, outcome });
const done = (entry: string, content: string, stop: 'end' | 'function_call' | 'aborted' = 'end'): HttpEventData => ({ type: 'message.done', entry_id: entry, content, stop_reason: stop, usage: null });

const texts = (v: ChatView) => v.blocks.map((b) => (b.kind === 'assistant' ? `A:${b.text}` : b.kind === 'user' ? `U:${b.text}` : b.kind === 'tool' ? `T:${b.tool}:${b.outcome ?? 'open'}` : b.kind === 'turn-end' ? `E:${b.outcome}` : `N:${b.text}`));

test('a turn: prompt, streamed steps with a tool call between them, the end; then it is settled', () => {
  const v = new ChatView();
  v.prompted('t1', 'edit it', false);
  expect(v.turn).toBe('t1');
  for (const e of [
    delta('t1', 0, 'Let me '),
    delta('t1', 0, 'look.'),
    done('t1:s0:assistant', 'Let me look.', 'function_call'),
    { type: 'tool.call', tool_call_id: 'c1', tool: 'edit_file', params: { path: 'a' }, requires_approval: true },
    { type: 'tool.output', tool_call_id: 'c1', content: 'working' },
    { type: 'tool.result', tool_call_id: 'c1', status: 'success', result: 'Edited a' },
    delta('t1', 1, 'Done.'),
  ] as HttpEventData[])
    v.apply(e);
  expect(texts(v)).toEqual(['U:edit it', 'A:Let me look.', 'T:edit_file:success', 'A:Done.']);
  // What can no longer change is settled already (drawn once); only the streaming step is live.
  expect(v.settled).toBe(3);
  expect(v.live().map((b) => b.key)).toEqual(['t1:1']);
  expect(v.blocks[2]).toMatchObject({ turn: 't1', output: 'working', result: 'Edited a' });
  v.apply(finished('t1'));
  expect(texts(v).at(-1)).toBe('E:done');
  expect(v.turn).toBeUndefined();
  expect(v.settled).toBe(v.blocks.length);
  expect(v.live()).toEqual([]);
});

test("the prompt's answer arriving after the turn's own events: the turn stays ended, and is not listed as queued", () => {
  const v = new ChatView();
  // A fast turn: its events (it has no prompt text yet, so it asks the store) and its end come first.
  for (const e of [delta('t1', 0, 'You said: hi'), done('t1:s0:assistant', 'You said: hi'), finished('t1')]) v.apply(e);
  expect(v.unknownPrompts.has('t1')).toBe(true);
  v.prompted('t1', 'hi', false);
  expect(v.turn).toBeUndefined();
  expect(texts(v)).toEqual(['U:hi', 'A:You said: hi', 'E:done']);
  expect(v.unknownPrompts.has('t1')).toBe(false);
  // The same for a follow-up thought queued when sent, whose turn already ran.
  for (const e of [delta('t2', 0, 'You said: more'), finished('t2')]) v.apply(e);
  v.prompted('t2', 'more', true);
  expect(v.queued).toEqual([]);
  expect(v.turn).toBeUndefined();
  expect(texts(v).slice(3)).toEqual(['U:more', 'A:You said: more', 'E:done']);
});

test('stream.reset: the retried step replaces the text (the repeated part is not shown twice); stragglers are dropped; message.done is authoritative', () => {
  const v = new ChatView();
  v.apply(delta('t1', 0, 'Hello wor'));
  v.apply({ type: 'stream.reset', turn_id: 't1', step: 0, attempt: 2 });
  v.apply(delta('t1', 0, 'Hello ', 2));
  v.apply(delta('t1', 0, 'late straggler', 1));
  expect(texts(v)).toEqual(['U:', 'A:Hello wor']);
  v.apply(delta('t1', 0, 'world', 2));
  expect(texts(v)[1]).toBe('A:Hello world');
  v.apply(delta('t1', 1, 'Bye'));
  v.apply({ type: 'stream.reset', turn_id: 't1', step: 1, attempt: 2 });
  v.apply(delta('t1', 1, 'Something else', 2));
  expect(texts(v)[2]).toBe('A:Something else');
  v.apply(done('t1:s1:assistant', 'Something else entirely'));
  expect(texts(v)[2]).toBe('A:Something else entirely');
  // A turn this client did not start: its prompt is to be read from the store.
  expect([...v.unknownPrompts]).toEqual(['t1']);
  v.promptText('t1', 'from elsewhere');
  expect(texts(v)[0]).toBe('U:from elsewhere');
});

test('a follow-up queued while a turn runs shows after that turn, when its own turn starts', () => {
  const v = new ChatView();
  v.prompted('t1', 'first', false);
  v.apply(delta('t1', 0, 'one'));
  v.prompted('t2', 'second', true);
  expect(v.queued).toEqual([{ turn: 't2', text: 'second' }]);
  v.apply(delta('t1', 0, ' more'));
  v.apply(finished('t1'));
  v.apply({ type: 'error', code: 'LLM_API_ERROR', message: 'boom' });
  v.apply(delta('t2', 0, 'two'));
  v.apply(finished('t2', 'error'));
  expect(texts(v)).toEqual(['U:first', 'A:one more', 'E:done', 'N:LLM_API_ERROR: boom', 'U:second', 'A:two', 'E:error']);
  expect(v.queued).toEqual([]);
});

test('approvals: listed ones go once their call has output or a result, or the turn ends', () => {
  const v = new ChatView();
  v.prompted('t1', 'x', false);
  v.setApprovals([
    { tool_call_id: 'a', tool: 'write_file', params: {}, turn_id: 't1' },
    { tool_call_id: 'b', tool: 'shell_exec', params: {}, turn_id: 't1' },
  ]);
  v.apply({ type: 'tool.result', tool_call_id: 'a', status: 'rejected', result: 'no' });
  expect(v.approvals.map((a) => a.tool_call_id)).toEqual(['b']);
  v.apply(finished('t1', 'aborted'));
  expect(v.approvals).toEqual([]);
});

test('usage since the totals were read adds up, and starts over when they are read again', () => {
  const v = new ChatView();
  v.apply({ type: 'usage', input: 10, output: 2, cache_read: 0, cache_write: 0, cost_usd: 0.5 });
  v.apply({ type: 'usage', input: 5, output: 1, cache_read: 0, cache_write: 0, cost_usd: 0.25 });
  expect(v.usageSinceStats).toEqual({ input: 15, output: 3, cost: 0.75 });
  v.statsRead();
  expect(v.usageSinceStats).toEqual({ input: 0, output: 0, cost: 0 });
});

test('stored history: turns, tool calls with their results (a rejection told apart), a running turn left to its events', () => {
  const items: any[] = [
    { entry_id: 't1:user', message: { role: 'user', content: [{ type: 'text', text: 'hi' }], timestamp: 1 } },
    { entry_id: 't1:s0:assistant', message: { role: 'assistant', content: [{ type: 'thinking', text: 'hmm' }, { type: 'text', text: 'Look.' }, { type: 'function_call', id: 'c1', function_id: 'edit_file', arguments: { path: 'a' } }], model: 'm', provider: 'p', stop_reason: 'function_call', timestamp: 2 } },
    { entry_id: 't1:s0:tool:c1', message: { role: 'function_result', function_call_id: 'c1', function_id: 'edit_file', content: [{ type: 'text', text: 'The user rejected this edit_file call.' }], details: { rejected: true }, is_error: true, timestamp: 3 } },
    { entry_id: 't1:s1:assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'OK.' }], model: 'm', provider: 'p', stop_reason: 'end', timestamp: 4 } },
    { entry_id: 'c9', custom: { custom_type: 'compaction', data: {} } },
    { entry_id: 't2:user', message: { role: 'user', content: [{ type: 'text', text: 'again' }], timestamp: 5 } },
    { entry_id: 't2:s0:assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'partial' }], model: 'm', provider: 'p', stop_reason: 'function_call', timestamp: 6 } },
  ];
  const blocks = blocksOfHistory(items, 't2');
  expect(blocks.map((b) => `${b.kind}:${b.key}`)).toEqual(['user:user:t1', 'assistant:t1:0', 'tool:tool:c1', 'assistant:t1:1', 'notice:custom:c9', 'user:user:t2']);
  expect(blocks[1]).toMatchObject({ text: 'Look.', thinking: 'hmm', done: true });
  expect(blocks[2]).toMatchObject({ outcome: 'rejected', result: 'The user rejected this edit_file call.' });
  const v = new ChatView();
  v.addHistory(blocks, 't2');
  // A replay of a turn the store already gave whole is not shown again (it ended while the chat opened).
  for (const e of [delta('t1', 0, 'Look.'), done('t1:s0:assistant', 'Look.', 'function_call'), { type: 'tool.result', tool_call_id: 'c1', status: 'success', result: 'x' }, finished('t1')] as HttpEventData[]) v.apply(e);
  v.apply(delta('t2', 0, 'partial'));
  expect(texts(v)).toEqual(['U:hi', 'A:Look.', 'T:edit_file:rejected', 'A:OK.', 'N:the conversation before this point was compacted', 'U:again', 'A:partial']);
  expect(v.unknownPrompts.size).toBe(0);
});

test('a turn that started between reading the session and its messages (stored in part) is filled in by its events, and ends', () => {
  // Seen on a loaded machine: the page sent a prompt while it was still opening; the session read said
  // idle, the messages read already held the prompt. The turn's events were dropped as "read whole"
  // and the page said "working…" for good with no answer.
  const user = (turn: string, text: string) => ({ entry_id: `${turn}:user`, message: { role: 'user', content: [{ type: 'text', text }], timestamp: 1 } });
  const answer = (entry: string, text: string, stop: string) => ({ entry_id: entry, message: { role: 'assistant', content: [{ type: 'text', text }], model: 'm', provider: 'p', stop_reason: stop, timestamp: 2 } });
  const v = new ChatView();
  v.prompted('t1', 'go', false);
  v.addHistory(blocksOfHistory([user('t1', 'go')] as any[]));
  for (const e of [delta('t1', 0, 'Do'), delta('t1', 0, 'ne.'), done('t1:s0:assistant', 'Done.'), finished('t1')]) v.apply(e);
  expect(texts(v)).toEqual(['U:go', 'A:Done.', 'E:done']);
  expect(v.turn).toBeUndefined();

  // Stored up to a finished step: the replayed deltas of that step do not append to its stored text.
  const w = new ChatView();
  w.addHistory(blocksOfHistory([user('t1', 'go'), answer('t1:s0:assistant', 'Looking.', 'function_call')] as any[]));
  for (const e of [delta('t1', 0, 'Looking.'), done('t1:s0:assistant', 'Looking.', 'function_call'), delta('t1', 1, 'Found.'), finished('t1')]) w.apply(e);
  expect(texts(w)).toEqual(['U:go', 'A:Looking.', 'A:Found.', 'E:done']);

  // Stored whole while this client had entered it: its replay is not shown again, but its end is.
  const x = new ChatView();
  x.prompted('t1', 'go', false);
  x.addHistory(blocksOfHistory([user('t1', 'go'), answer('t1:s0:assistant', 'Done.', 'end')] as any[]));
  for (const e of [delta('t1', 0, 'Done.'), done('t1:s0:assistant', 'Done.'), finished('t1')]) x.apply(e);
  expect(texts(x)).toEqual(['U:go', 'A:Done.', 'E:done']);
  expect(x.turn).toBeUndefined();
});

test('every prompt and stored answer knows its entry id (where a fork starts); a steering message is its own block, not the prompt', () => {
  const v = new ChatView();
  v.prompted('t1', 'go', false);
  v.apply(delta('t1', 0, 'Working'));
  expect(v.blocks.map((b) => ('entryId' in b ? b.entryId : undefined))).toEqual(['t1:user', undefined]);
  v.apply(done('t1:s0:assistant', 'Working.'));
  expect(v.blocks[1]).toMatchObject({ entryId: 't1:s0:assistant', done: true, stopReason: 'end' });

  const items: any[] = [
    { entry_id: 't1:user', message: { role: 'user', content: [{ type: 'text', text: 'the prompt' }], timestamp: 1 } },
    { entry_id: 't1:s0:steer:0', message: { role: 'user', content: [{ type: 'text', text: 'the steer' }], timestamp: 2 } },
    { entry_id: 't1:s1:assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'OK' }], model: 'm', provider: 'p', stop_reason: 'end', timestamp: 3 } },
    // A forked session's entries have ids of their own: no turn can be read from them.
    { entry_id: '0abc', message: { role: 'user', content: [{ type: 'text', text: 'forked prompt' }], timestamp: 4 } },
    { entry_id: '0abd', message: { role: 'assistant', content: [{ type: 'text', text: 'forked answer' }], model: 'm', provider: 'p', stop_reason: 'end', timestamp: 5 } },
  ];
  const h = new ChatView();
  h.addHistory(blocksOfHistory(items));
  expect(texts(h)).toEqual(['U:the prompt', 'U:the steer', 'A:OK', 'U:forked prompt', 'A:forked answer']);
  expect(h.blocks.map((b) => ('entryId' in b ? b.entryId : undefined))).toEqual(['t1:user', 't1:s0:steer:0', 't1:s1:assistant', '0abc', '0abd']);
});

test('a compaction shows its summary, live and from the store; one that had nothing to summarise shows nothing', () => {
  const v = new ChatView();
  v.apply({ type: 'compaction.started', reason: 'manual' });
  v.apply({ type: 'compaction.finished', summary: '', tokens_before: 10 });
  expect(texts(v)).toEqual([]);
  v.apply({ type: 'compaction.started', reason: 'manual' });
  v.apply({ type: 'compaction.finished', summary: 'We renamed the parser.', tokens_before: 5000 });
  expect(texts(v)).toEqual(['N:Compacted: We renamed the parser.']);
  const stored = blocksOfHistory([{ entry_id: 'compact:1', custom: { custom_type: 'compaction', data: { summary: 'We renamed the parser.' } } }] as any[]);
  expect(stored).toMatchObject([{ kind: 'notice', text: 'Compacted: We renamed the parser.' }]);
});

test('a turn waiting at its budget: a line with the spending, the cap and how to raise it', () => {
  const v = new ChatView();
  v.prompted('t1', 'go on', false);
  v.apply({ type: 'agent.state', state: 'waiting_budget' });
  v.apply({ type: 'budget.exceeded', turn_id: 't1', spent_usd: 1.25, spent_tokens: 9000, limit: { max_cost_usd: 1, max_tokens: null } });
  expect(v.phase).toBe('waiting_budget');
  expect(texts(v).at(-1)).toBe('N:budget reached: spent $1.25 and 9000 tokens of $1; the turn waits. /budget <usd> raises the dollar cap (/budget off clears both), Esc ends the turn');
});

test("another client's turn that ends before its prompt is read: the prompt stays live until its text comes (or is said to be unreadable)", () => {
  const v = new ChatView();
  for (const e of [delta('t1', 0, 'You said: hi'), done('t1:s0:assistant', 'You said: hi'), finished('t1')]) v.apply(e);
  // Settled blocks are drawn once: settling the empty prompt would show it empty for good.
  expect(v.settled).toBe(0);
  expect(v.live().map((b) => b.key)).toEqual(['user:t1', 't1:0', 'end:t1']);
  v.promptText('t1', 'hi');
  expect(v.settled).toBe(v.blocks.length);
  expect(texts(v)).toEqual(['U:hi', 'A:You said: hi', 'E:done']);
  // A later turn whose prompt is never read: said, then settled.
  for (const e of [delta('t2', 0, 'x'), finished('t2')]) v.apply(e);
  v.notice('info', 'a notice between turns');
  expect(v.settled).toBe(3);
  v.promptUnread('t2');
  expect(v.settled).toBe(v.blocks.length);
  expect(texts(v)[3]).toMatch(/^U:\(this prompt, sent from another client, could not be read\)$/);
  // A prompt read while its turn still runs settles with the blocks after it that are final.
  v.apply(delta('t3', 0, 'y'));
  expect(v.live().map((b) => b.key)).toEqual(['user:t3', 't3:0']);
  v.promptText('t3', 'third');
  expect(v.live().map((b) => b.key)).toEqual(['t3:0']);
});
