import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runChat } from '../harness/chat-cli';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * `strand chat` without a terminal (`-p`, or a prompt on stdin), as scripts and CI run it, against a
 * real stack: the answer on stdout as plain text, the exit code by the turn's outcome, approvals
 * refused unless --yes, the project's session created then resumed, and a gateway killed and
 * restarted mid-answer costing not one character lost or doubled.
 */
let stack: TestStack;
let workspace: string;
let scripts: string;

beforeAll(async () => {
  scripts = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-chat-scripts-'));
  fs.writeFileSync(path.join(scripts, 'fails.json'), JSON.stringify({ steps: [[{ type: 'error', kind: 'permanent', message: 'scripted: this model always fails' }]] }));
  stack = await startTestStack({ STRAND_SCRIPTS_DIR: scripts });
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
  fs.rmSync(scripts, { recursive: true, force: true });
}, 60_000);

beforeEach(() => {
  workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'strand-chat-ws-')));
});
afterEach(() => fs.rmSync(workspace, { recursive: true, force: true }));

const chat = (args: string[], stdin?: string) => runChat(args, { cwd: workspace, gateway: stack.urls.gateway, ...(stdin !== undefined ? { stdin } : {}) });

async function sessionWith(model: string): Promise<string> {
  const res = await http(stack.urls.gateway, 'POST', '/api/sessions', { project_path: workspace, model });
  expect(res.status).toBe(201);
  return res.body.session_id;
}

async function storedAnswer(sessionId: string): Promise<{ text: string; stop: string }> {
  const { messages } = (await http(stack.urls.gateway, 'GET', `/api/sessions/${sessionId}/messages`)).body;
  const last = messages.filter((m: any) => m.message?.role === 'assistant').at(-1).message;
  return { text: last.content.filter((b: any) => b.type === 'text').map((b: any) => b.text).join(''), stop: last.stop_reason };
}

test('-p starts a session for the directory and prints the answer; a piped prompt resumes that session', async () => {
  const first = chat(['-p', 'hello from a script']);
  expect(await first.exited).toBe(0);
  expect(first.stdout()).toBe('You said: hello from a script\n');
  const sessions = (await http(stack.urls.gateway, 'GET', `/api/sessions?project=${encodeURIComponent(workspace)}`)).body.sessions;
  expect(sessions).toHaveLength(1);
  expect(first.stderr()).toContain(`session ${sessions[0].session_id} (new)`);

  const second = chat([], 'and from a pipe\n');
  expect(await second.exited).toBe(0);
  expect(second.stdout()).toBe('You said: and from a pipe\n');
  const after = (await http(stack.urls.gateway, 'GET', `/api/sessions?project=${encodeURIComponent(workspace)}`)).body.sessions;
  expect(after.map((s: any) => [s.session_id, s.message_count])).toEqual([[sessions[0].session_id, 4]]);

  const fresh = chat(['--new', '-p', 'a new one']);
  expect(await fresh.exited).toBe(0);
  expect((await http(stack.urls.gateway, 'GET', `/api/sessions?project=${encodeURIComponent(workspace)}`)).body.sessions).toHaveLength(2);
}, 120_000);

test('a tool call that needs approval is refused without --yes and runs with it', async () => {
  const sid = await sessionWith('scripted/edit-file');
  fs.writeFileSync(path.join(workspace, 'README.md'), 'hello world\n');
  const refused = chat(['--session', sid, '-p', 'change the greeting']);
  expect(await refused.exited).toBe(0);
  expect(fs.readFileSync(path.join(workspace, 'README.md'), 'utf8')).toBe('hello world\n');
  expect(refused.stdout()).toBe('I will change the greeting in README.md.\n\nDone. The edit tool said: The user rejected this edit_file call: strand chat without a terminal refuses tool calls that need approval (run it with --yes to allow them)\n');
  expect(refused.stderr()).toContain('[tool] refused: edit_file');

  const allowed = chat(['--session', sid, '--yes', '-p', 'change the greeting now']);
  expect(await allowed.exited).toBe(0);
  expect(fs.readFileSync(path.join(workspace, 'README.md'), 'utf8')).toBe('hello strand\n');
  expect(allowed.stdout()).toContain('Done. The edit tool said: Edited README.md');
}, 120_000);

test('a turn that fails exits 1 with the error on stderr', async () => {
  const sid = await sessionWith('scripted/fails');
  const run = chat(['--session', sid, '-p', 'anything']);
  expect(await run.exited).toBe(1);
  expect(run.stderr()).toMatch(/LLM_API_ERROR: .*this model always fails/);
}, 60_000);

test('Ctrl-C (SIGINT) aborts the turn: exit 3, and stdout holds exactly the stored partial answer', async () => {
  const sid = await sessionWith('scripted/slow');
  const run = chat(['--session', sid, '-p', 'take your time']);
  await run.waitForStdout((t) => t.includes('slowly on purpose'));
  run.child.kill('SIGINT');
  expect(await run.exited).toBe(3);
  const stored = await storedAnswer(sid);
  expect(stored.stop).toBe('aborted');
  expect(run.stdout()).toBe(`${stored.text}\n`);
  expect(stored.text).not.toContain('and that is the end.');
}, 60_000);

test('the gateway killed and restarted mid-answer: the answer is printed whole, nothing lost or doubled', async () => {
  const sid = await sessionWith('scripted/slow');
  const run = chat(['--session', sid, '-p', 'survive a restart']);
  await run.waitForStdout((t) => t.includes('slowly on purpose'));
  await stack.process('gateway').kill();
  await stack.restart('gateway');
  expect(await run.exited).toBe(0);
  const stored = await storedAnswer(sid);
  expect(stored.text).toMatch(/^Here is a long answer\. .*and that is the end\.$/s);
  expect(run.stdout()).toBe(`${stored.text}\n`);
  expect(run.stderr()).toContain('the event stream dropped');
}, 120_000);

test('no prompt at all is a usage error (exit 2)', async () => {
  const run = chat([], '  \n');
  expect(await run.exited).toBe(2);
  expect(run.stderr()).toContain('strand chat: no prompt');
}, 30_000);
