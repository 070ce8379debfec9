import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChatTerminal, type ChatTerminal } from '../harness/chat-tmux';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * `/undo` and `/redo` in the interactive `strand chat` (docs/chat.md, docs/undo.md), in a real terminal
 * (tmux) against a real stack: a scripted model writes a file; /undo puts it back and the turn leaves
 * the screen, /redo brings both back; a file changed by hand since makes /undo ask "Overwrite? y/n",
 * and y reverts it anyway. Assertions are on the screen and the file on disk.
 */
let stack: TestStack;
let scripts: string;
let workspace: string;
const terminals: ChatTerminal[] = [];

beforeAll(async () => {
  scripts = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-chat-undo-scripts-'));
  const steps = [
    [{ type: 'text', text: 'Writing the notes.' }, { type: 'tool_call', name: 'write_file', args: { path: 'notes.txt', content: 'by the agent\n' } }],
    [{ type: 'text', text: 'The notes are written.' }],
  ];
  fs.writeFileSync(path.join(scripts, 'undo-write.json'), JSON.stringify({ steps }));
  stack = await startTestStack({ STRAND_SCRIPTS_DIR: scripts });
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
  if (scripts) fs.rmSync(scripts, { recursive: true, force: true });
}, 60_000);

beforeEach(() => {
  workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'strand-chat-undo-')));
});
afterEach(() => {
  for (const t of terminals.splice(0)) t.close();
  fs.rmSync(workspace, { recursive: true, force: true });
});

const api = (method: string, route: string, body?: unknown) => http(stack.urls.gateway, method, route, body);
const notes = () => fs.readFileSync(path.join(workspace, 'notes.txt'), 'utf8');
/** The screen with Ink's line wrapping undone. */
const flat = (screen: string) => screen.replace(/\s+/g, ' ');
const prompt = (t: ChatTerminal, text: string) => {
  t.type(text);
  t.keys('Enter');
};

/** Waits until the session has `turns` answered prompts and no turn runs (the chat may show an answer before its turn ends). */
async function turnEnded(sid: string, turns: number): Promise<void> {
  for (let i = 0; ; i++) {
    const { messages } = (await api('GET', `/api/sessions/${sid}/messages`)).body;
    const answered = new Set(messages.filter((m: any) => m.message?.role === 'assistant' && m.message.stop_reason !== 'function_call').map((m: any) => m.entry_id.split(':')[0]));
    if (answered.size >= turns && (await api('GET', `/api/sessions/${sid}`)).body.active_turn == null) return;
    if (i > 300) throw new Error(`turn ${turns} never ended`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A session whose first turn (scripted/echo) only talks and whose model then writes notes.txt without
 * asking.
 */
async function sessionAfterOneTurn(): Promise<string> {
  const created = await api('POST', '/api/sessions', { project_path: workspace, model: 'scripted/echo' });
  expect(created.status).toBe(201);
  const sid = created.body.session_id as string;
  expect((await api('POST', `/api/sessions/${sid}/prompt`, { text: 'warm up' })).status).toBe(202);
  await turnEnded(sid, 1);
  expect((await api('POST', `/api/sessions/${sid}/model`, { provider: 'scripted', model_id: 'undo-write' })).status).toBe(200);
  expect((await api('PATCH', `/api/sessions/${sid}/settings`, { approval: { always_allow: ['write_file'] } })).status).toBe(200);
  return sid;
}

test('/undo puts the file back and takes the turn off the screen; /redo brings both back; a conflict asks Overwrite? and y forces it', async () => {
  fs.writeFileSync(path.join(workspace, 'notes.txt'), 'before\n');
  const sid = await sessionAfterOneTurn();
  const t = startChatTerminal(['--session', sid], { cwd: workspace, gateway: stack.urls.gateway });
  terminals.push(t);
  await t.waitFor((s) => s.includes('You said: warm up') && s.includes('scripted/undo-write ·'), 'the first turn and the footer');

  prompt(t, 'write the notes');
  await t.waitFor((s) => s.includes('The notes are written.'), 'the answer after the write');
  expect(notes()).toBe('by the agent\n');
  await turnEnded(sid, 2);

  prompt(t, '/undo');
  let screen = await t.waitFor((s) => /turn \S+ undone: put back notes\.txt/.test(s), 'the undo line');
  expect(notes()).toBe('before\n');
  expect(screen).not.toContain('write the notes');
  expect(screen).not.toContain('The notes are written.');
  expect(screen).toContain('You said: warm up');

  prompt(t, '/redo');
  screen = await t.waitFor((s) => s.includes('redone: re-applied notes.txt'), 'the redo line');
  expect(notes()).toBe('by the agent\n');
  expect(screen).toContain('› write the notes');
  expect(screen).toContain('The notes are written.');

  fs.writeFileSync(path.join(workspace, 'notes.txt'), 'by hand\n');
  prompt(t, '/undo');
  await t.waitFor((s) => flat(s).includes('Changed since by someone else: notes.txt. Overwrite? y/n'), 'the overwrite question');
  expect(notes()).toBe('by hand\n');
  t.keys('y');
  screen = await t.waitFor((s) => /turn \S+ undone: put back notes\.txt/.test(s), 'the forced undo');
  expect(notes()).toBe('before\n');
  expect(screen).not.toContain('The notes are written.');
  expect((await api('GET', `/api/sessions/${sid}/messages`)).body.messages.map((m: any) => m.entry_id).filter((e: string) => e.endsWith(':user'))).toHaveLength(1);

  // The first turn changed no file: its undo takes the conversation back to empty.
  prompt(t, '/undo');
  screen = await t.waitFor((s) => flat(s).includes('turn t1 undone: no files to change'), 'the first turn undone');
  expect(notes()).toBe('before\n');
  expect(screen).not.toContain('You said: warm up');
  expect((await api('GET', `/api/sessions/${sid}/messages`)).body.messages).toEqual([]);
  // Nothing is left to undo, and the chat says so.
  prompt(t, '/undo');
  await t.waitFor((s) => flat(s).includes('nothing to undo: no turn in this conversation'), 'the nothing-to-undo line');
}, 150_000);

test('an undo made elsewhere (curl) reaches an open chat: the undone turn leaves its screen', async () => {
  const created = await api('POST', '/api/sessions', { project_path: workspace, model: 'scripted/echo' });
  const sid = created.body.session_id as string;
  expect((await api('POST', `/api/sessions/${sid}/prompt`, { text: 'first words' })).status).toBe(202);
  await turnEnded(sid, 1);
  expect((await api('POST', `/api/sessions/${sid}/prompt`, { text: 'second words' })).status).toBe(202);
  await turnEnded(sid, 2);
  const t = startChatTerminal(['--session', sid], { cwd: workspace, gateway: stack.urls.gateway });
  terminals.push(t);
  await t.waitFor((s) => s.includes('You said: second words'), 'both turns');
  // It changed no file: only conversation.moved tells the chat (docs/undo.md).
  expect((await api('POST', `/api/sessions/${sid}/revert`, { turn_id: 't2' })).status).toBe(200);
  const screen = await t.waitFor((s) => !s.includes('second words') && s.includes('You said: first words'), 'the undone turn gone');
  expect(screen).not.toContain('You said: second words');
}, 60_000);
