import { execFileSync, execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFakeAnthropicServer, type FakeAnthropicReply, type FakeProviderServer } from '../harness/fake-anthropic-server';
import { openSse, readUntil, type SseConnection } from '../harness/sse-client';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';
import { dataOf, EdnTestClient, topicOf } from './edn-session-client';
import { bootstrap } from './edn-session-fixture';

/**
 * File checkpoints end to end (docs/undo.md): the real stack, the real Anthropic SDK in the worker
 * against a local Messages API whose replies call the tools. write/edit/delete/shell changes are
 * undone and redone through `POST …/revert`, with `file.changed` announced and the conversation's
 * active leaf moved; a file someone else changed since is a 409 REVERT_CONFLICT until forced; a revert
 * while a turn runs is 409 SESSION_BUSY; in a git repository the revert leaves `.git` alone.
 */
const WRITING_TOOLS = ['write_file', 'edit_file', 'delete_file', 'shell_exec'];
let stack: TestStack;
let fake: FakeProviderServer<FakeAnthropicReply>;
let base: string;
let top: string;

beforeAll(async () => {
  fake = await startFakeAnthropicServer();
  top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'strand-e2e-checkpoints-')));
  stack = await startTestStack({
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: fake.baseURL,
    STRAND_DEFAULT_MODEL: 'anthropic/claude-sonnet-4-6',
  });
  base = stack.urls.gateway;
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
  killLeftovers();
  await fake?.close();
  if (top) fs.rmSync(top, { recursive: true, force: true });
}, 60_000);

const MARKER = `strand-ckpt-crash-${process.pid}`;
/** Matches the command, not the shell that runs pgrep with it. */
const PATTERN = `strand-ckpt-cras[h]-${process.pid}`;

/** The command a killed worker started is not its child: make sure none is left. */
function killLeftovers(): void {
  for (const pid of execSync(`pgrep -f '${PATTERN}' || true`).toString().split('\n').filter(Boolean)) {
    try {
      process.kill(-Number(pid), 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
}

let callSeq = 0;
const call = (name: string, input: Record<string, unknown>): FakeAnthropicReply => ({ blocks: [{ type: 'tool_use', id: `toolu_${++callSeq}`, name, input }] });

/** A session on `workspace` whose writing tools run without asking. */
async function session(workspace: string): Promise<string> {
  const created = await http(base, 'POST', '/api/sessions', { project_path: workspace });
  expect(created.status).toBe(201);
  const sid = created.body.session_id as string;
  expect((await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { approval: { always_allow: WRITING_TOOLS } })).status).toBe(200);
  return sid;
}

/** One turn: each reply calls one tool (a step each), then the model says it is done. */
async function turn(sid: string, text: string, calls: FakeAnthropicReply[]): Promise<string> {
  fake.reply(...calls, { blocks: [{ type: 'text', text: 'done' }] });
  const stream = await openSse(`${base}/api/sessions/${sid}/events`);
  try {
    const prompted = await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text });
    expect(prompted.status).toBe(202);
    const events = await readUntil(stream, (e) => e.event === 'turn.finished' && JSON.parse(e.data).turn_id === prompted.body.turn_id, 60_000);
    expect(JSON.parse(events.at(-1)!.data).outcome).toBe('done');
    return prompted.body.turn_id as string;
  } finally {
    stream.close();
  }
}

/** The entry ids of the conversation's active path, oldest first. */
async function activePath(sid: string): Promise<string[]> {
  const page = await http(base, 'GET', `/api/sessions/${sid}/messages?limit=500`);
  expect(page.status).toBe(200);
  return (page.body.messages as Array<{ entry_id: string }>).map((m) => m.entry_id);
}

/** Reverts (or redoes), collecting the file.changed events it announces. */
async function revert(sid: string, body: Record<string, unknown>, expectFiles = 0, expectMoved = false): Promise<{ status: number; body: any; changed: Array<{ path: string; operation: string }>; moved?: any }> {
  // A stream without a cursor shows live events only, from the moment its headers arrive.
  const stream: SseConnection | undefined = expectFiles > 0 || expectMoved ? await openSse(`${base}/api/sessions/${sid}/events`) : undefined;
  try {
    const res = await http(base, 'POST', `/api/sessions/${sid}/revert`, body);
    let changed: Array<{ path: string; operation: string }> = [];
    let moved: any;
    if (stream) {
      let seen = 0;
      const done = () => seen >= expectFiles && (!expectMoved || moved !== undefined);
      const events = await readUntil(stream, (e) => {
        if (e.event === 'file.changed') seen++;
        if (e.event === 'conversation.moved') moved = JSON.parse(e.data);
        return done();
      }, 30_000);
      changed = events.filter((e) => e.event === 'file.changed').map((e) => JSON.parse(e.data)).map((d) => ({ path: d.path, operation: d.operation }));
    }
    return { ...res, changed, ...(moved ? { moved } : {}) };
  } finally {
    stream?.close();
  }
}

const read = (ws: string, rel: string) => (fs.existsSync(path.join(ws, rel)) ? fs.readFileSync(path.join(ws, rel), 'utf8') : null);

test('write, edit, delete and shell changes are undone and redone; the leaf moves; a conflict is refused until forced', async () => {
  const ws = path.join(top, 'plain');
  fs.mkdirSync(ws);
  fs.writeFileSync(path.join(ws, 'keep.txt'), 'keep\n');
  fs.writeFileSync(path.join(ws, 'edit.txt'), 'hello world\n');
  fs.writeFileSync(path.join(ws, 'del.txt'), 'bye\n');
  const sid = await session(ws);

  const t1 = await turn(sid, 'change things', [
    call('write_file', { path: 'new.txt', content: 'new\n' }),
    call('edit_file', { path: 'edit.txt', old: 'world', new: 'strand' }),
    call('delete_file', { path: 'del.txt' }),
    call('shell_exec', { command: 'echo made > shell.txt && echo more >> keep.txt' }),
  ]);
  expect([read(ws, 'new.txt'), read(ws, 'edit.txt'), read(ws, 'del.txt'), read(ws, 'shell.txt'), read(ws, 'keep.txt')]).toEqual(['new\n', 'hello strand\n', null, 'made\n', 'keep\nmore\n']);

  const listed = await http(base, 'GET', `/api/sessions/${sid}/checkpoints`);
  expect(listed.status).toBe(200);
  expect(listed.body.checkpoints.map((c: any) => [c.turn_id, c.tool, c.paths, c.reverted])).toEqual([
    [t1, 'write_file', ['new.txt'], false],
    [t1, 'edit_file', ['edit.txt'], false],
    [t1, 'delete_file', ['del.txt'], false],
    [t1, 'shell_exec', ['keep.txt', 'shell.txt'], false],
  ]);
  expect(listed.body.checkpoints[0].entry_id).toMatch(new RegExp(`^${t1}:s0:tool:`));

  const t2 = await turn(sid, 'once more', [call('write_file', { path: 'edit.txt', content: 'second\n' })]);
  const fullPath = await activePath(sid);
  expect(fullPath).toContain(`${t2}:user`);
  const spent = async () => (await http(base, 'GET', `/api/sessions/${sid}/stats`)).body.usage;
  const spentBefore = await spent();
  expect(spentBefore.input).toBeGreaterThan(0);

  // Undo the second turn: its file back, the leaf just before its user message.
  const undo2 = await revert(sid, { turn_id: t2 }, 1, true);
  expect(undo2.status).toBe(200);
  expect(undo2.body.files).toEqual([{ path: 'edit.txt', operation: 'write' }]);
  expect(undo2.changed).toEqual([{ path: 'edit.txt', operation: 'write' }]);
  expect(read(ws, 'edit.txt')).toBe('hello strand\n');
  const afterUndo = await activePath(sid);
  expect(afterUndo).toEqual(fullPath.slice(0, fullPath.indexOf(`${t2}:user`)));
  expect(afterUndo.at(-1)).toMatch(new RegExp(`^${t1}:`));
  // Every client hears that the conversation moved, and where to (docs/undo.md).
  expect(undo2.moved).toEqual({ type: 'conversation.moved', reason: 'revert', active_leaf: afterUndo.at(-1) });
  // The undone turn left the branch, not the bill: the session's spending (what budgets check) stays.
  expect(await spent()).toEqual(spentBefore);

  // Redo: the file and the leaf come back.
  const redo2 = await revert(sid, { redo: true }, 1, true);
  expect(redo2.status).toBe(200);
  expect(redo2.moved).toEqual({ type: 'conversation.moved', reason: 'redo', active_leaf: fullPath.at(-1) });
  expect(read(ws, 'edit.txt')).toBe('second\n');
  expect(await activePath(sid)).toEqual(fullPath);
  expect(await spent()).toEqual(spentBefore); // back on the branch: counted once
  expect((await http(base, 'POST', `/api/sessions/${sid}/revert`, { redo: true })).body.error.code).toBe('NOTHING_TO_REDO');

  // Undo everything from the first turn on: created files removed, the deleted one restored.
  const undo1 = await revert(sid, { turn_id: t1 }, 5);
  expect(undo1.status).toBe(200);
  expect(undo1.body.files).toEqual([
    { path: 'del.txt', operation: 'write' },
    { path: 'edit.txt', operation: 'write' },
    { path: 'keep.txt', operation: 'write' },
    { path: 'new.txt', operation: 'delete' },
    { path: 'shell.txt', operation: 'delete' },
  ]);
  expect(new Set(undo1.changed.map((c) => c.path))).toEqual(new Set(['del.txt', 'edit.txt', 'keep.txt', 'new.txt', 'shell.txt']));
  expect([read(ws, 'new.txt'), read(ws, 'edit.txt'), read(ws, 'del.txt'), read(ws, 'shell.txt'), read(ws, 'keep.txt')]).toEqual([null, 'hello world\n', 'bye\n', null, 'keep\n']);
  expect((await http(base, 'GET', `/api/sessions/${sid}/checkpoints`)).body.checkpoints.every((c: any) => c.reverted)).toBe(true);

  // Someone else writes a file the redo would create: refused with the path, then forced.
  fs.writeFileSync(path.join(ws, 'new.txt'), 'mine\n');
  const conflict = await http(base, 'POST', `/api/sessions/${sid}/revert`, { redo: true });
  expect(conflict.status).toBe(409);
  expect(conflict.body.error).toMatchObject({ code: 'REVERT_CONFLICT', details: { paths: ['new.txt'] } });
  expect(read(ws, 'new.txt')).toBe('mine\n');
  expect(read(ws, 'edit.txt')).toBe('hello world\n');
  const forced = await http(base, 'POST', `/api/sessions/${sid}/revert`, { redo: true, force: true });
  expect(forced.status).toBe(200);
  expect([read(ws, 'new.txt'), read(ws, 'edit.txt'), read(ws, 'del.txt'), read(ws, 'shell.txt')]).toEqual(['new\n', 'second\n', null, 'made\n']);
  expect(await activePath(sid)).toEqual(fullPath);

  // The checkpoints live outside the project: nothing was added to it.
  expect(fs.readdirSync(ws).sort()).toEqual(['edit.txt', 'keep.txt', 'new.txt', 'shell.txt']);

  // A new prompt after a revert drops the redo, and continues from where the revert left the conversation.
  expect((await revert(sid, { turn_id: t2 }, 1)).status).toBe(200);
  const t3 = await turn(sid, 'a different direction', []);
  const branched = await activePath(sid);
  expect(branched).toContain(`${t3}:user`);
  expect(branched.some((id) => id.startsWith(`${t2}:`))).toBe(false);
  expect((await http(base, 'POST', `/api/sessions/${sid}/revert`, { redo: true })).body.error.code).toBe('NOTHING_TO_REDO');
  expect(read(ws, 'edit.txt')).toBe('hello strand\n');
}, 180_000);

test('undo of the first turn takes the conversation back to empty and puts its files back; redo brings both back', async () => {
  const ws = path.join(top, 'first-turn');
  fs.mkdirSync(ws);
  fs.writeFileSync(path.join(ws, 'edit.txt'), 'hello world\n');
  const sid = await session(ws);
  const t1 = await turn(sid, 'start things', [call('write_file', { path: 'new.txt', content: 'new\n' }), call('edit_file', { path: 'edit.txt', old: 'world', new: 'strand' })]);
  const fullPath = await activePath(sid);
  expect(fullPath[0]).toBe(`${t1}:user`);

  const undo = await revert(sid, { turn_id: t1 }, 2, true);
  expect(undo.status).toBe(200);
  expect(undo.body.files).toEqual([
    { path: 'edit.txt', operation: 'write' },
    { path: 'new.txt', operation: 'delete' },
  ]);
  expect([read(ws, 'new.txt'), read(ws, 'edit.txt')]).toEqual([null, 'hello world\n']);
  expect(await activePath(sid)).toEqual([]);
  expect(undo.moved).toMatchObject({ type: 'conversation.moved', reason: 'revert' });

  const redo = await revert(sid, { redo: true }, 2, true);
  expect(redo.status).toBe(200);
  expect(redo.moved).toEqual({ type: 'conversation.moved', reason: 'redo', active_leaf: fullPath.at(-1) });
  expect([read(ws, 'new.txt'), read(ws, 'edit.txt')]).toEqual(['new\n', 'hello strand\n']);
  expect(await activePath(sid)).toEqual(fullPath);

  // A first turn that changed no file is undone too: nothing to put back, the conversation empty.
  const talk = path.join(top, 'first-turn-talk');
  fs.mkdirSync(talk);
  const quiet = await session(talk);
  const q1 = await turn(quiet, 'just talk', []);
  expect(await activePath(quiet)).toContain(`${q1}:user`);
  const undoTalk = await revert(quiet, { turn_id: q1 }, 0, true);
  expect(undoTalk.status).toBe(200);
  expect(undoTalk.body.files).toEqual([]);
  expect(await activePath(quiet)).toEqual([]);
  // A new prompt then starts the conversation afresh.
  const q2 = await turn(quiet, 'a fresh start', []);
  expect((await activePath(quiet))[0]).toBe(`${q2}:user`);
}, 180_000);

test('a revert while a turn runs is 409 SESSION_BUSY; bad bodies are 400; an unknown point is 404', async () => {
  const ws = path.join(top, 'busy');
  fs.mkdirSync(ws);
  const sid = await session(ws);
  expect((await http(base, 'POST', `/api/sessions/${sid}/revert`, { turn_id: 't1', entry_id: 'x' })).status).toBe(400);
  expect((await http(base, 'POST', `/api/sessions/${sid}/revert`, {})).status).toBe(400);
  const none = await http(base, 'POST', `/api/sessions/${sid}/revert`, { turn_id: 't9' });
  expect(none.status).toBe(404);
  expect(none.body.error.code).toBe('CHECKPOINT_NOT_FOUND');

  fake.reply({ blocks: [{ type: 'text', text: 'slow answer' }], delay_ms: 1_500 });
  const stream = await openSse(`${base}/api/sessions/${sid}/events`);
  try {
    expect((await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: 'take your time' })).status).toBe(202);
    // The HTTP stream announces a turn's start as agent.state "thinking".
    await readUntil(stream, (e) => e.event === 'agent.state' && JSON.parse(e.data).state === 'thinking', 30_000);
    const busy = await http(base, 'POST', `/api/sessions/${sid}/revert`, { turn_id: 't1' });
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('SESSION_BUSY');
    await readUntil(stream, (e) => e.event === 'turn.finished', 60_000);
  } finally {
    stream.close();
  }
}, 120_000);

test('in a git repository the revert is exact and leaves .git alone', async () => {
  const ws = path.join(top, 'repo');
  fs.mkdirSync(ws);
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd: ws, stdio: 'pipe' });
  git('init', '-q');
  fs.writeFileSync(path.join(ws, 'tracked.txt'), 'v1\n');
  fs.writeFileSync(path.join(ws, '.gitignore'), 'out/\n');
  git('add', '.');
  git('commit', '-q', '-m', 'first');
  const index = fs.readFileSync(path.join(ws, '.git', 'index'));
  const head = fs.readFileSync(path.join(ws, '.git', 'HEAD'));
  const sid = await session(ws);

  const t1 = await turn(sid, 'edit in a repo', [
    call('write_file', { path: 'tracked.txt', content: 'v2\n' }),
    call('shell_exec', { command: 'mkdir -p out && echo build > out/x && echo new > untracked.txt' }),
  ]);
  expect(read(ws, 'tracked.txt')).toBe('v2\n');
  const listed = (await http(base, 'GET', `/api/sessions/${sid}/checkpoints`)).body.checkpoints;
  // The ignored build output is not watched.
  expect(listed.map((c: any) => c.paths)).toEqual([['tracked.txt'], ['untracked.txt']]);

  const undone = await revert(sid, { turn_id: t1 }, 2);
  expect(undone.status).toBe(200);
  expect([read(ws, 'tracked.txt'), read(ws, 'untracked.txt'), read(ws, 'out/x')]).toEqual(['v1\n', null, 'build\n']);
  expect(fs.readFileSync(path.join(ws, '.git', 'index')).equals(index)).toBe(true);
  expect(fs.readFileSync(path.join(ws, '.git', 'HEAD')).equals(head)).toBe(true);
  expect(git('status', '--porcelain').toString()).toBe('');
}, 180_000);

test('a worker killed mid-shell: the checkpoint is taken once and the revert is exact', async () => {
  const ws = path.join(top, 'crash');
  fs.mkdirSync(ws);
  fs.writeFileSync(path.join(ws, 'data.txt'), 'v1\n');
  const sid = await session(ws);
  fake.reply(call('shell_exec', { command: `echo v2 > data.txt && echo new > made.txt && sleep 60; : ${MARKER}`, timeout_s: 120 }), { blocks: [{ type: 'text', text: 'done' }] });
  const stream = await openSse(`${base}/api/sessions/${sid}/events`);
  try {
    const prompted = await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: 'change and wait' });
    expect(prompted.status).toBe(202);
    await readUntil(stream, (e) => e.event === 'agent.state' && JSON.parse(e.data).state === 'tool_execution', 30_000);
    // The command has made its changes and sleeps: the worker dies under it.
    for (let i = 0; i < 100 && read(ws, 'made.txt') === null; i++) await new Promise((r) => setTimeout(r, 100));
    expect([read(ws, 'data.txt'), read(ws, 'made.txt')]).toEqual(['v2\n', 'new\n']);
    expect(execSync(`pgrep -fc '${PATTERN}' || true`).toString().trim()).not.toBe('0');
    await stack.process('worker').kill();
    await stack.restart('worker');
    const rest = await readUntil(stream, (e) => e.event === 'turn.finished', 90_000);
    const result = JSON.parse(rest.find((e) => e.event === 'tool.result')!.data);
    expect(result.result).toMatch(/interrupted.*not run again/s);
    // The interrupted call still reports what it changed.
    expect(rest.filter((e) => e.event === 'file.changed').map((e) => JSON.parse(e.data).path).sort()).toEqual(['data.txt', 'made.txt']);
  } finally {
    stream.close();
  }
  const listed = (await http(base, 'GET', `/api/sessions/${sid}/checkpoints`)).body.checkpoints;
  expect(listed.map((c: any) => [c.tool, c.paths])).toEqual([['shell_exec', ['data.txt', 'made.txt']]]);
  const undone = await revert(sid, { entry_id: listed[0].entry_id }, 2);
  expect(undone.status).toBe(200);
  expect([read(ws, 'data.txt'), read(ws, 'made.txt')]).toEqual(['v1\n', null]);
  expect(fs.readdirSync(ws)).toEqual(['data.txt']);
  killLeftovers();
}, 180_000);

test('over EDN, psi\'s `command` op takes /undo and /redo', async () => {
  const ws = path.join(top, 'edn');
  fs.mkdirSync(ws);
  fs.writeFileSync(path.join(ws, 'a.txt'), 'one\n');
  const sid = await session(ws);
  await turn(sid, 'change a', [call('write_file', { path: 'a.txt', content: 'two\n' })]);
  const c = await EdnTestClient.tcp(stack.urls.edn);
  try {
    await bootstrap(c);
    await c.request('switch_session', { 'session-id': sid });
    const undo = c.send('command', { text: '/undo' });
    const undone = dataOf(await c.waitFor((f) => topicOf(f) === 'command-result' && f.id === undo));
    expect(undone.message).toMatch(/^✓ Undone: 1 file\(s\), back to before t1\n↺ a\.txt$/);
    expect(read(ws, 'a.txt')).toBe('one\n');
    const redo = c.send('command', { text: '/redo' });
    expect(dataOf(await c.waitFor((f) => topicOf(f) === 'command-result' && f.id === redo)).message).toMatch(/^✓ Redone: 1 file/);
    expect(read(ws, 'a.txt')).toBe('two\n');
    expect(c.violations).toEqual([]);
  } finally {
    c.close();
  }
  // Deleting the session deletes its checkpoints (the worker hears the store's `deleted` event).
  const dir = path.join(stack.config.dataDir, 'checkpoints', 'sessions', sid);
  expect(fs.existsSync(dir)).toBe(true);
  expect((await http(base, 'DELETE', `/api/sessions/${sid}`)).status).toBe(200);
  for (let i = 0; i < 100 && fs.existsSync(dir); i++) await new Promise((r) => setTimeout(r, 100));
  expect(fs.existsSync(dir)).toBe(false);
}, 120_000);
