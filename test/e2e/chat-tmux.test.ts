import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChatTerminal, type ChatTerminal } from '../harness/chat-tmux';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * The interactive `strand chat` in a real terminal (tmux: send-keys to type, capture-pane to read),
 * against a real stack: a turn with an approval allowed and one rejected with a reason, an abort
 * with Esc, slash commands (completion, /help, /model, /new), the gateway killed and restarted
 * mid-answer, a turn that ran while no chat was open, and Ctrl-C twice. Assertions are on what the
 * screen shows and on the store, polled until they hold; nothing is timed.
 */
let stack: TestStack;
let workspace: string;
const terminals: ChatTerminal[] = [];

beforeAll(async () => {
  stack = await startTestStack();
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
}, 60_000);

beforeEach(() => {
  workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'strand-chat-tmux-')));
});
afterEach(() => {
  for (const t of terminals.splice(0)) t.close();
  fs.rmSync(workspace, { recursive: true, force: true });
});

function chat(args: string[]): ChatTerminal {
  const t = startChatTerminal(args, { cwd: workspace, gateway: stack.urls.gateway });
  terminals.push(t);
  return t;
}

async function sessionWith(model: string): Promise<string> {
  const res = await http(stack.urls.gateway, 'POST', '/api/sessions', { project_path: workspace, model });
  expect(res.status).toBe(201);
  return res.body.session_id;
}

async function storedAnswers(sessionId: string): Promise<Array<{ text: string; stop: string }>> {
  const { messages } = (await http(stack.urls.gateway, 'GET', `/api/sessions/${sessionId}/messages`)).body;
  return messages
    .filter((m: any) => m.message?.role === 'assistant')
    .map((m: any) => ({ text: m.message.content.filter((b: any) => b.type === 'text').map((b: any) => b.text).join(''), stop: m.message.stop_reason }));
}

const count = (text: string, part: string) => text.split(part).length - 1;
/** The screen with Ink's line wrapping undone: words separated by single spaces. */
const flat = (screen: string) => screen.replace(/\s+/g, ' ');
const prompt = (t: ChatTerminal, text: string) => {
  t.type(text);
  t.keys('Enter');
};

test('a tool call waits for an approval: y runs it, n with a reason rejects it and the model reads why', async () => {
  const sid = await sessionWith('scripted/edit-file');
  fs.writeFileSync(path.join(workspace, 'README.md'), 'hello world\n');
  const t = chat(['--session', sid]);
  await t.waitFor((s) => s.includes('scripted/edit-file · reasoning'), 'the footer');
  prompt(t, 'change the greeting');
  const asking = await t.waitFor((s) => s.includes('Allow edit_file README.md?'), 'the approval prompt');
  expect(asking).toContain('- world');
  expect(asking).toContain('+ strand');
  expect(fs.readFileSync(path.join(workspace, 'README.md'), 'utf8')).toBe('hello world\n');
  t.keys('y');
  await t.waitFor((s) => s.includes('Done. The edit tool said: Edited README.md'), 'the answer after the edit');
  expect(fs.readFileSync(path.join(workspace, 'README.md'), 'utf8')).toBe('hello strand\n');
  expect(t.screen()).toContain('✓ edit_file README.md success');

  fs.writeFileSync(path.join(workspace, 'README.md'), 'hello world\n');
  prompt(t, 'change it again');
  await t.waitFor((s) => count(s, 'Allow edit_file README.md?') === 1 && s.includes('change it again'), 'the second approval prompt');
  t.keys('n');
  await t.waitFor((s) => s.includes('Why not'), 'the reason prompt');
  prompt(t, 'not on a Friday');
  await t.waitFor((s) => s.includes('Done. The edit tool said: The user rejected this edit_file call: not on a Friday'), 'the answer after the rejection');
  expect(fs.readFileSync(path.join(workspace, 'README.md'), 'utf8')).toBe('hello world\n');
  expect(t.screen()).toContain('✗ edit_file README.md rejected');
}, 120_000);

test('/plan turns plan mode on: the edit is refused without asking and the model reads why; /plan again turns it off', async () => {
  const sid = await sessionWith('scripted/edit-file');
  fs.writeFileSync(path.join(workspace, 'README.md'), 'hello world\n');
  const t = chat(['--session', sid]);
  await t.waitFor((s) => s.includes('scripted/edit-file · reasoning'), 'the footer');
  prompt(t, '/plan');
  await t.waitFor((s) => flat(s).includes('plan mode on: the agent reads and plans'), 'plan mode on');
  expect((await http(stack.urls.gateway, 'GET', `/api/sessions/${sid}/settings`)).body.approval.plan_mode).toBe(true);
  prompt(t, 'change the greeting');
  await t.waitFor((s) => flat(s).includes('Done. The edit tool said: Plan mode is on: this edit_file call was not run.'), 'the answer quoting the refusal');
  expect(t.screen()).not.toContain('Allow edit_file');
  expect(fs.readFileSync(path.join(workspace, 'README.md'), 'utf8')).toBe('hello world\n');
  prompt(t, '/plan');
  // Not just "plan mode off": the refusal the model read says "the user can switch plan mode off".
  await t.waitFor((s) => flat(s).includes('plan mode off: the agent may change files'), 'plan mode off');
  expect((await http(stack.urls.gateway, 'GET', `/api/sessions/${sid}/settings`)).body.approval.plan_mode).toBe(false);
}, 120_000);

test('slash commands: Tab completes, /help lists, /model switches, /new starts a session; Esc aborts a running turn', async () => {
  const t = chat(['--new']);
  // The notice a session opened by the chat leaves (the help also says "a new session", but not this).
  const opened = (screen: string) => [...screen.matchAll(/new session (\S+) in \//g)].map((m) => m[1]!);
  const [first] = opened(await t.waitFor((s) => opened(s).length > 0, 'the new session'));
  t.type('/he');
  t.keys('Tab');
  await t.waitFor((s) => s.includes('> /help '), 'the completed command');
  t.keys('Enter');
  await t.waitFor((s) => s.includes('Commands (Tab completes):') && s.includes('/fork'), 'the help');

  prompt(t, '/model scripted/slow');
  await t.waitFor((s) => s.includes('model: scripted/slow') && s.includes('scripted/slow · reasoning'), 'the model switched');
  prompt(t, 'a long one please');
  await t.waitFor((s) => s.includes('slowly on purpose'), 'the answer streaming');
  t.keys('Escape');
  await t.waitFor((s) => s.includes('— turn aborted —'), 'the aborted turn');
  const [sid] = (await http(stack.urls.gateway, 'GET', `/api/sessions?project=${encodeURIComponent(workspace)}`)).body.sessions.map((s: any) => s.session_id);
  const [answer] = await storedAnswers(sid);
  expect(answer!.stop).toBe('aborted');
  expect(answer!.text).not.toContain('and that is the end.');
  // What the screen shows of the aborted answer is exactly what was stored.
  expect(flat(t.screen())).toContain(flat(answer!.text));

  prompt(t, '/new');
  const newIds = (screen: string) => opened(screen).filter((id) => id !== first);
  const [second] = newIds(await t.waitFor((s) => newIds(s).length > 0, 'a second session'));
  const sessions = (await http(stack.urls.gateway, 'GET', `/api/sessions?project=${encodeURIComponent(workspace)}`)).body.sessions;
  expect(sessions.map((s: any) => s.session_id).sort()).toEqual([first, second].sort());
}, 120_000);

test('the gateway killed and restarted mid-answer: the chat reconnects and shows the answer whole, once', async () => {
  const sid = await sessionWith('scripted/slow');
  const t = chat(['--session', sid]);
  await t.waitFor((s) => s.includes('scripted/slow · reasoning'), 'the footer');
  prompt(t, 'survive a restart');
  await t.waitFor((s) => s.includes('slowly on purpose'), 'the answer streaming');
  await stack.process('gateway').kill();
  await t.waitFor((s) => s.includes('reconnecting ('), 'the reconnection');
  await stack.restart('gateway');
  const screen = await t.waitFor((s) => flat(s).includes('and that is the end.') && !s.trimEnd().split('\n').at(-1)!.includes('reconnecting ('), 'the end of the answer', 90_000);
  const [answer] = await storedAnswers(sid);
  expect(answer!.stop).toBe('end');
  expect(count(flat(screen), flat(answer!.text))).toBe(1);
  expect(count(screen, 'Here is a long answer.')).toBe(1);
}, 150_000);

test('a turn that ran while no chat was open shows when the session is opened; Ctrl-C twice quits', async () => {
  const sid = await sessionWith('scripted/echo');
  const accepted = await http(stack.urls.gateway, 'POST', `/api/sessions/${sid}/prompt`, { text: 'sent while **nobody** watched' });
  expect(accepted.status).toBe(202);
  for (let i = 0; (await storedAnswers(sid)).length === 0; i++) {
    if (i > 300) throw new Error('the turn never stored its answer');
    await new Promise((r) => setTimeout(r, 100));
  }
  const t = chat([]);
  // The project has one session: the picker offers it after "a new session".
  await t.waitFor((s) => s.includes('+ a new session') && s.includes(sid), 'the session picker');
  t.keys('Down');
  t.keys('Enter');
  const screen = await t.waitFor((s) => s.includes('You said: sent while nobody watched'), 'the stored turn, as markdown');
  expect(screen).toContain('› sent while **nobody** watched');
  t.keys('C-c');
  await t.waitFor((s) => s.includes('Ctrl-C again to quit'), 'the quit hint');
  t.keys('C-c');
  await t.waitFor((s) => s.includes('[chat exited 0]'), 'the chat closed');
}, 90_000);

test('a turn started by another client while the chat is open shows that turn\'s own prompt', async () => {
  const sid = await sessionWith('scripted/echo');
  const t = chat(['--session', sid]);
  await t.waitFor((s) => s.includes('scripted/echo ·'), 'the chat to open the session');
  prompt(t, 'first from here');
  await t.waitFor((s) => s.includes('You said: first from here'), 'the first answer');
  // The other client prompts once the session is idle, as a client does: the answer's text is on the
  // screen a moment before its turn has ended, and a prompt in that moment is rightly refused 409.
  for (let i = 0; (await http(stack.urls.gateway, 'GET', `/api/sessions/${sid}`)).body.agent_state !== 'idle'; i++) {
    if (i > 200) throw new Error('the first turn never ended');
    await new Promise((r) => setTimeout(r, 50));
  }
  const accepted = await http(stack.urls.gateway, 'POST', `/api/sessions/${sid}/prompt`, { text: 'second from elsewhere' });
  expect(accepted.status).toBe(202);
  const screen = flat(await t.waitFor((s) => flat(s).includes('You said: second from elsewhere'), 'the answer of the other client'));
  await t.waitFor((s) => flat(s).includes('› second from elsewhere'), 'the prompt of the other client');
  expect(count(flat(t.screen()), '› first from here')).toBe(1);
  expect(screen).toContain('› first from here');
}, 90_000);
