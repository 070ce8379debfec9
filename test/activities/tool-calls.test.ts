import { MockActivityEnvironment } from '@temporalio/testing';
import { CancelledFailure } from '@temporalio/common';
import type { ToolCheckpoints } from '../../activities/checkpoints/tool-checkpoints';
import { createMemoryToolLedger, type ToolLedger } from '../../activities/tool-calls/ledger';
import { createRecordToolResults } from '../../activities/tool-calls/record-results';
import { createRunTool, type ToolExecutorPort } from '../../activities/tool-calls/run-tool';
import { createRunUserCommand } from '../../activities/tool-calls/user-command';
import { memoryStorePort, recordingPublisher } from '../harness/memory-store-port';

/**
 * The tool-call activities against the store's real domain logic: arguments read from the stored
 * assistant message, output streamed, outcomes recorded by call before completion (a retry returns
 * them and never acts twice), an interrupted shell reported instead of re-run, abort recorded, and
 * results written in call order whatever became of each call.
 */
async function setup(executor: ToolExecutorPort, wrap: { ledger?: (l: ToolLedger) => ToolLedger; toolCheckpoints?: ToolCheckpoints } = {}) {
  const { port, store } = await memoryStorePort();
  const { session_id } = await store.create({ metadata: {} });
  await store.append({ session_id, entry_id: 't1:user', message: { role: 'user', content: [{ type: 'text', text: 'go' }], timestamp: 1 } });
  await store.append({
    session_id,
    entry_id: 't1:s0:assistant',
    message: {
      role: 'assistant',
      content: [
        { type: 'function_call', id: 'a', function_id: 'write_file', arguments: { path: 'x.txt', content: 'hi' } },
        { type: 'function_call', id: 'b', function_id: 'shell_exec', arguments: { command: 'make' } },
        { type: 'function_call', id: 'c', function_id: 'delete_file', arguments: { path: 'y' } },
      ],
      model: 'm',
      provider: 'p',
      stop_reason: 'function_call',
      timestamp: 2,
    },
  });
  const events = recordingPublisher();
  const ledger = createMemoryToolLedger();
  const runTool = createRunTool({ store: port, events, ledger: wrap.ledger?.(ledger) ?? ledger, tools: executor, heartbeatMs: 20, ...(wrap.toolCheckpoints ? { toolCheckpoints: wrap.toolCheckpoints } : {}) });
  const record = createRecordToolResults({ store: port, events, ledger });
  const call = (call_id: string, name: string) => ({ session_id, project_path: '/ws', turn_id: 't1', step: 0, call_id, name });
  return { store, events, ledger, runTool, record, call, session_id };
}

test('a tool runs once with its stored arguments; a retry returns the recorded outcome', async () => {
  const runs: unknown[] = [];
  const { events, runTool, call } = await setup({
    async execute(name, params, ctx) {
      runs.push({ name, params, workspace: ctx.workspace });
      ctx.onOutput?.('writing…');
      return { content: 'wrote x.txt', is_error: false, file_changes: [{ path: 'x.txt', operation: 'write' }] };
    },
  });
  expect(await new MockActivityEnvironment().run(runTool, call('a', 'write_file'))).toEqual({ is_error: false });
  expect(await new MockActivityEnvironment({ attempt: 2 }).run(runTool, call('a', 'write_file'))).toEqual({ is_error: false });
  expect(runs).toEqual([{ name: 'write_file', params: { path: 'x.txt', content: 'hi' }, workspace: '/ws' }]);
  expect(events.events.map((e) => e.event.type)).toEqual(['tool.executing', 'tool.output', 'file.changed', 'tool.result']);
  expect(events.events[3]!.event).toMatchObject({ type: 'tool.result', tool_call_id: 'a', status: 'success', is_error: false, summary: 'write_file: wrote x.txt' });
});

test('a shell command cut off by a crash is reported as interrupted, not run again', async () => {
  let runs = 0;
  const { runTool, call, ledger } = await setup({
    async execute() {
      runs += 1;
      return { content: 'ok', is_error: false };
    },
  });
  const result = await new MockActivityEnvironment({ attempt: 2 }).run(runTool, call('b', 'shell_exec'));
  expect(result).toEqual({ is_error: true });
  expect(runs).toBe(0);
  expect((await ledger.get({ session_id: call('b', 'x').session_id, turn_id: 't1', step: 0, call_id: 'b' }))?.content).toMatch(/interrupted.*not run again/);
});

test('an abort stops the tool, records it as aborted and propagates the cancellation', async () => {
  const { runTool, call } = await setup({
    execute: (_n, _p, ctx) =>
      new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))),
  });
  const env = new MockActivityEnvironment();
  const run = env.run(runTool, call('b', 'shell_exec'));
  await new Promise((r) => setTimeout(r, 50));
  env.cancel();
  expect(await run.catch((e: unknown) => e)).toBeInstanceOf(CancelledFailure);
});

test('a cancellation that comes before the tool starts (the call still reading the ledger) stops it', async () => {
  const { runTool, call } = await setup({
    execute: (_n, _p, ctx) =>
      new Promise((_, reject) => {
        const t = setTimeout(() => reject(new Error('ran to its end: the cancellation was lost')), 60_000);
        const stop = () => {
          clearTimeout(t);
          reject(ctx.signal.reason);
        };
        if (ctx.signal.aborted) stop();
        else ctx.signal.addEventListener('abort', stop);
      }),
  });
  const env = new MockActivityEnvironment();
  const run = env.run(runTool, call('b', 'shell_exec'));
  env.cancel();
  expect(await run.catch((e: unknown) => e)).toBeInstanceOf(CancelledFailure);
});

/**
 * Counts an activity's heartbeats; `beats(what)` resolves once two more have arrived (so a ticker
 * runs, beyond any single heartbeat), and fails naming `what` if none comes for 10 s.
 */
function heartbeatsOf(env: MockActivityEnvironment) {
  let count = 0;
  const waiting: Array<() => void> = [];
  env.on('heartbeat', () => {
    count += 1;
    for (const w of waiting.splice(0)) w();
  });
  const seen: string[] = [];
  return {
    seen,
    async beats(what: string): Promise<void> {
      const target = count + 2;
      while (count < target) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no heartbeat while ${what}`)), 10_000);
          waiting.push(() => (clearTimeout(timer), resolve()));
        });
      }
      seen.push(what);
    },
  };
}

test('a tool heartbeats through every slow await, before and after the tool itself (a live worker never misses its heartbeat timeout)', async () => {
  // Each slow part below finishes only once heartbeats have arrived while it waited: without them it fails.
  const env = new MockActivityEnvironment();
  const hb = heartbeatsOf(env);
  const ledger = (l: ToolLedger): ToolLedger => ({
    get: async (key) => (await hb.beats('reading the ledger'), l.get(key)),
    put: async (key, outcome) => (await hb.beats('writing the ledger'), l.put(key, outcome)),
  });
  const toolCheckpoints = {
    begin: async () => (await hb.beats('snapshotting the workspace'), {}),
    // A project of a few thousand files took 7 s here on a busy machine (bench/README.md).
    finish: async (_ref: unknown, outcome: unknown) => (await hb.beats('diffing the workspace after the tool'), outcome),
  } as unknown as ToolCheckpoints;
  const { runTool, call } = await setup({ execute: async () => ({ content: 'made', is_error: false }) }, { ledger, toolCheckpoints });
  expect(await env.run(runTool, call('b', 'shell_exec'))).toEqual({ is_error: false });
  expect(hb.seen).toEqual(['reading the ledger', 'snapshotting the workspace', 'diffing the workspace after the tool', 'writing the ledger']);
});

test("a user's own command heartbeats while its ledger is read and written, not only while it runs", async () => {
  const env = new MockActivityEnvironment();
  const hb = heartbeatsOf(env);
  const memory = createMemoryToolLedger();
  const ledger: ToolLedger = {
    get: async (key) => (await hb.beats('reading the ledger'), memory.get(key)),
    put: async (key, outcome) => (await hb.beats('writing the ledger'), memory.put(key, outcome)),
  };
  const { port, store } = await memoryStorePort();
  const { session_id } = await store.create({ metadata: {} });
  const run = createRunUserCommand({ store: port, events: recordingPublisher(), ledger, tools: { execute: async () => ({ content: 'ok', is_error: false, details: { exit_code: 0 } }) }, heartbeatMs: 20 });
  await env.run(run, { session_id, project_path: '/ws', id: 'bash:1', command: 'make' });
  expect(hb.seen).toEqual(['reading the ledger', 'writing the ledger']);
});

test('results are written in call order, with reasons for rejected and notes for calls never run', async () => {
  const { runTool, record, call, store, session_id } = await setup({
    async execute(name) {
      return { content: `${name} done`, is_error: false };
    },
  });
  await new MockActivityEnvironment().run(runTool, call('c', 'delete_file'));
  await new MockActivityEnvironment().run(record, {
    session_id,
    turn_id: 't1',
    step: 0,
    calls: [
      { id: 'a', name: 'write_file', disposition: 'rejected' as const, reason: 'not that file' },
      { id: 'b', name: 'shell_exec', disposition: 'aborted' as const },
      { id: 'c', name: 'delete_file', disposition: 'ran' as const },
    ],
  });
  const page = store.messages({ session_id })!;
  const results = page.messages.filter((m) => m.message?.role === 'function_result').map((m) => [m.entry_id, (m.message as any).content[0].text, (m.message as any).is_error]);
  expect(results).toEqual([
    ['t1:s0:tool:a', 'The user rejected this write_file call: not that file', true],
    ['t1:s0:tool:b', 'Not run: the user aborted the turn before this shell_exec call ran.', true],
    ['t1:s0:tool:c', 'delete_file done', false],
  ]);
});
