import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CheckpointStore } from './checkpoint-store';
import { pruneCheckpoints } from './prune';
import { ToolCheckpoints, type ToolCallRef } from './tool-checkpoints';
import { snapshotWorkspace } from './workspace-snapshot';

/** Real directories: a workspace and a checkpoint directory beside it (never inside). */
function sandbox() {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'strand-checkpoints-')));
  const ws = path.join(base, 'ws');
  fs.mkdirSync(ws);
  const store = new CheckpointStore(path.join(base, 'checkpoints'));
  const write = (rel: string, content: string) => {
    fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
    fs.writeFileSync(path.join(ws, rel), content);
  };
  return { base, ws, store, write, cleanup: () => fs.rmSync(base, { recursive: true, force: true }) };
}

const bounds = { maxFiles: 1000, maxFileBytes: 1024 * 1024, maxTotalBytes: 16 * 1024 * 1024 };
const signal = new AbortController().signal;
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

describe('checkpoint store', () => {
  let sb: ReturnType<typeof sandbox>;
  beforeEach(() => (sb = sandbox()));
  afterEach(() => sb.cleanup());

  test('contents are kept once, named by their sha256', async () => {
    const a = await sb.store.blobs.put(Buffer.from('same\n'));
    const b = await sb.store.blobs.put(Buffer.from('same\n'));
    expect(a).toBe(sha('same\n'));
    expect(b).toBe(a);
    expect((await sb.store.blobs.get(a)).toString()).toBe('same\n');
    const all = [];
    for await (const e of sb.store.blobs.entries()) all.push(e.sha256);
    expect(all).toEqual([a]);
  });

  test('a second record of the same entry keeps the first before-state (a retried tool call)', async () => {
    const tools = new ToolCheckpoints(sb.store, bounds);
    sb.write('a.txt', 'original\n');
    const call: ToolCallRef = { session_id: 's1', turn_id: 't1', entry_id: 't1:s0:tool:c1', tool: 'write_file', params: { path: 'a.txt' }, workspace: sb.ws };
    await tools.begin(call, signal);
    // The first attempt wrote, then the worker died before finishing; the retry begins again.
    sb.write('a.txt', 'changed\n');
    await tools.begin(call, signal);
    const outcome = await tools.finish(call, { content: 'Wrote a.txt', is_error: false }, {}, signal);
    expect(outcome.content).toBe('Wrote a.txt');
    const [record] = await sb.store.list('s1');
    expect(record!.files).toEqual([
      { path: 'a.txt', before: { state: 'file', sha256: sha('original\n'), size: 9, mode: expect.any(Number) }, after: { state: 'file', sha256: sha('changed\n'), size: 8, mode: expect.any(Number) } },
    ]);
    expect(fs.readdirSync(path.join(sb.base, 'checkpoints', 'sessions', 's1', 'pending'))).toEqual(['t1:s0:tool:c1.json']);
  });

  test('a created file is recorded as absent before, a deleted one as absent after; a call that changed nothing leaves no checkpoint', async () => {
    const tools = new ToolCheckpoints(sb.store, bounds);
    const create: ToolCallRef = { session_id: 's1', turn_id: 't1', entry_id: 't1:s0:tool:c1', tool: 'write_file', params: { path: 'new/b.txt' }, workspace: sb.ws };
    await tools.begin(create, signal);
    sb.write('new/b.txt', 'b\n');
    await tools.finish(create, { content: 'ok', is_error: false }, {}, signal);
    const del: ToolCallRef = { session_id: 's1', turn_id: 't2', entry_id: 't2:s0:tool:c2', tool: 'delete_file', params: { path: 'new/b.txt' }, workspace: sb.ws };
    await tools.begin(del, signal);
    fs.rmSync(path.join(sb.ws, 'new/b.txt'));
    await tools.finish(del, { content: 'ok', is_error: false }, {}, signal);
    const failed: ToolCallRef = { session_id: 's1', turn_id: 't2', entry_id: 't2:s0:tool:c3', tool: 'edit_file', params: { path: 'nothing.txt' }, workspace: sb.ws };
    await tools.begin(failed, signal);
    await tools.finish(failed, { content: 'not found', is_error: true }, {}, signal);
    const list = await sb.store.list('s1');
    expect(list.map((c) => [c.entry_id, c.files.map((f) => [f.path, f.before.state, f.after.state])])).toEqual([
      ['t1:s0:tool:c1', [['new/b.txt', 'absent', 'file']]],
      ['t2:s0:tool:c2', [['new/b.txt', 'file', 'absent']]],
    ]);
  });

  test('shell_exec: created, changed and deleted files become file_changes; ignored and node_modules files are not watched', async () => {
    sb.write('.gitignore', 'build/\n');
    sb.write('keep.txt', 'keep\n');
    sb.write('edit.txt', 'one\n');
    sb.write('gone.txt', 'gone\n');
    sb.write('build/out.js', 'old\n');
    sb.write('node_modules/x/index.js', 'x\n');
    const tools = new ToolCheckpoints(sb.store, bounds);
    const call: ToolCallRef = { session_id: 's1', turn_id: 't1', entry_id: 't1:s0:tool:sh', tool: 'shell_exec', params: { command: '…' }, workspace: sb.ws };
    await tools.begin(call, signal);
    sb.write('edit.txt', 'two\n');
    fs.rmSync(path.join(sb.ws, 'gone.txt'));
    sb.write('made.txt', 'made\n');
    sb.write('build/out.js', 'new\n');
    sb.write('node_modules/x/index.js', 'y\n');
    const outcome = await tools.finish(call, { content: '[exit code 0]', is_error: false }, {}, signal);
    expect(outcome.file_changes).toEqual([
      { path: 'edit.txt', operation: 'edit' },
      { path: 'gone.txt', operation: 'delete' },
      { path: 'made.txt', operation: 'write' },
    ]);
    expect(outcome.content).toBe('[exit code 0]');
  });

  test('shell_exec beyond the bounds says so: too many files, a file too large to keep', async () => {
    sb.write('a.txt', 'a\n');
    sb.write('b.txt', 'b\n');
    sb.write('big.bin', 'x'.repeat(100));
    const tools = new ToolCheckpoints(sb.store, { maxFiles: 2, maxFileBytes: 10, maxTotalBytes: 1000 });
    const call: ToolCallRef = { session_id: 's1', turn_id: 't1', entry_id: 't1:s0:tool:sh', tool: 'shell_exec', params: {}, workspace: sb.ws };
    await tools.begin(call, signal);
    sb.write('a.txt', 'A\n');
    const outcome = await tools.finish(call, { content: 'done', is_error: false }, {}, signal);
    expect(outcome.file_changes).toEqual([{ path: 'a.txt', operation: 'edit' }]);
    expect(outcome.content).toContain('Only the first 2 files of the workspace were watched');

    const big = new ToolCheckpoints(sb.store, { maxFiles: 100, maxFileBytes: 10, maxTotalBytes: 1000 });
    const call2 = { ...call, entry_id: 't1:s0:tool:sh2' };
    await big.begin(call2, signal);
    sb.write('big.bin', 'y'.repeat(101));
    const out2 = await big.finish(call2, { content: 'done', is_error: false }, {}, signal);
    expect(out2.content).toContain('larger than 10 bytes');
    expect(out2.content).toContain('Changed but not undoable (beyond the checkpoint bounds): big.bin.');
    const record = (await sb.store.list('s1')).find((c) => c.entry_id === 't1:s0:tool:sh2');
    expect(record!.files).toEqual([{ path: 'big.bin', before: { state: 'unsaved', size: 100, reason: 'larger than 10 bytes' }, after: { state: 'unsaved', size: 101, reason: 'larger than 10 bytes' } }]);
  });

  test('a later snapshot reads only files whose size or time changed (and none changed just before the last one)', async () => {
    sb.write('old.txt', 'aaaa\n');
    sb.write('edited.txt', 'one\n');
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(path.join(sb.ws, 'old.txt'), past, past);
    fs.utimesSync(path.join(sb.ws, 'edited.txt'), past, past);
    const first = await snapshotWorkspace(sb.ws, sb.store.blobs, bounds, signal);
    // Same size and time: taken as unchanged without reading it (the size-and-time rule git uses too).
    sb.write('old.txt', 'bbbb\n');
    fs.utimesSync(path.join(sb.ws, 'old.txt'), past, past);
    sb.write('edited.txt', 'two, longer\n');
    const second = await snapshotWorkspace(sb.ws, sb.store.blobs, bounds, signal, { files: first.files, takenAt: Date.now() });
    expect(second.files['old.txt']!.state).toEqual(first.files['old.txt']!.state);
    expect(second.files['edited.txt']!.state).toMatchObject({ state: 'file', sha256: sha('two, longer\n') });
    // Changed close to the earlier snapshot: read again, whatever its size and time say.
    const racy = await snapshotWorkspace(sb.ws, sb.store.blobs, bounds, signal, { files: first.files, takenAt: past.getTime() + 1_000 });
    expect(racy.files['old.txt']!.state).toMatchObject({ sha256: sha('bbbb\n') });
  });

  test('pruning drops deleted sessions, old checkpoints and unreferenced blobs', async () => {
    const tools = new ToolCheckpoints(sb.store, bounds, () => 1_000);
    sb.write('a.txt', 'a\n');
    for (const [session, entry] of [['old', 't1:s0:tool:c1'], ['gone', 't1:s0:tool:c1']] as const) {
      const call: ToolCallRef = { session_id: session, turn_id: 't1', entry_id: entry, tool: 'write_file', params: { path: 'a.txt' }, workspace: sb.ws };
      await tools.begin(call, signal);
      sb.write('a.txt', `${session}\n`);
      await tools.finish(call, { content: 'ok', is_error: false }, {}, signal);
    }
    const report = await pruneCheckpoints(sb.store, { maxAgeMs: 10_000, maxBytes: 1 << 30, orphanGraceMs: 0 }, async (id) => id !== 'gone', Date.now() + 1);
    expect(report.sessions_removed).toBe(1);
    expect(await sb.store.sessions()).toEqual(['old']);
    expect(await sb.store.list('old')).toEqual([]);
    const left = [];
    for await (const e of sb.store.blobs.entries()) left.push(e.sha256);
    expect(left).toEqual([]);
  });
});
