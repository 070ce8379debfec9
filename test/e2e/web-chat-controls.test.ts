import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { eventually } from '../harness/browser';
import { http } from '../harness/stack-fixture';
import { useWebStack } from '../harness/web-stack';

/**
 * The chat page's controls beyond a plain turn, in real Chromium against a real stack (docs/web.md):
 * Steer (the model reads the text mid-turn), the thinking picker, the transcript downloads, the
 * settings panel (a change made on the page is the session's; one made with curl shows on the page),
 * Compact, and a fork from an answer. Outcomes are read from the page by role and name and from the
 * HTTP API; every page must reach its own origin only and log no error.
 */
jest.setTimeout(120_000);

const CODE = "import fs from 'node:fs';\nconst note = fs.readFileSync('notes.txt', 'utf8');\nconsole.log(note.trim()); // hello strand";
const SCRIPTS: Record<string, unknown[]> = {
  // Asks to write a file and waits for a person: Steer skips the call and the model's next step reads the text.
  'web-steer': [[{ type: 'text', text: 'I will write the file.' }, { type: 'tool_call', name: 'write_file', args: { path: 'out.txt', content: 'x\n' } }]],
  // An edit (a diff, a tool row), then an answer with code: the conversation of the README's screenshot.
  'web-showcase': [
    [{ type: 'text', text: 'I will greet strand in `notes.txt`.' }, { type: 'tool_call', name: 'edit_file', args: { path: 'notes.txt', old: 'hello world', new: 'hello strand' } }],
    [{ type: 'text', text: `Done: {{tool_result_first_line}}\n\nRead it back with:\n\n\`\`\`ts\n${CODE}\n\`\`\`` }],
  ],
};

const web = useWebStack({
  scripts: SCRIPTS,
  env: {
    STRAND_SCRIPTED_DELTA_DELAY_MS: '5',
    // A provider whose models have thinking levels, so the thinking picker has levels to store. No
    // turn runs on it; its address is a closed loopback port.
    ANTHROPIC_API_KEY: 'test-key-never-sent',
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
    STRAND_DEFAULT_MODEL: 'scripted/echo',
  },
});
let workspace: string;

beforeEach(() => {
  // A project folder with a readable name: the session's title, shown in the screenshots.
  workspace = path.join(fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'strand-web-controls-'))), 'greeter');
  fs.mkdirSync(workspace);
});

afterEach(() => {
  fs.rmSync(path.dirname(workspace), { recursive: true, force: true });
});

async function open(sessionId: string): Promise<Page> {
  const watched = await web.open(`/#session=${sessionId}`);
  await watched.page.getByRole('status', { name: 'Connection' }).filter({ hasText: 'live' }).waitFor();
  return watched.page;
}

async function newSession(model: string): Promise<string> {
  const res = await http(web.stack.urls.gateway, 'POST', '/api/sessions', { project_path: workspace, model });
  expect(res.status).toBe(201);
  return res.body.session_id;
}

const api = (method: string, route: string, body?: unknown) => http(web.stack.urls.gateway, method, route, body);
const settingsOf = async (sid: string) => (await api('GET', `/api/sessions/${sid}/settings`)).body;
const storedMessages = async (sid: string): Promise<any[]> => (await api('GET', `/api/sessions/${sid}/messages`)).body.messages.map((m: any) => m.message);
const textOf = (m: any) => m.content.filter((b: any) => b.type === 'text').map((b: any) => b.text).join('');

const send = async (page: Page, text: string) => {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
};
const answers = (page: Page) => page.getByRole('article', { name: 'Answer' });
const prompts = (page: Page) => page.getByRole('article', { name: 'Prompt' });
const finishedTurns = (page: Page, n: number) => eventually(() => page.locator('.turn-end').filter({ hasText: 'done' }).count(), (c) => c === n, `${n} finished turn(s)`);

test('Steer hands text to the running turn: the call waiting for approval is skipped and the next model step answers it', async () => {
  const sid = await newSession('scripted/web-steer');
  const page = await open(sid);
  await send(page, 'write out.txt please');
  await page.getByRole('button', { name: 'Approve', exact: true }).waitFor();
  // While a turn runs there is nothing to compact between.
  expect(await page.getByRole('button', { name: 'Compact' }).isDisabled()).toBe(true);

  // The model's next step answers with what it read last (the scripted provider replays step 1 after a new user message).
  web.writeScript('web-steer', [[{ type: 'text', text: 'Steered by: {{user}}' }]]);
  await page.getByRole('textbox', { name: 'Message' }).fill('use the name result.txt instead');
  await page.getByRole('button', { name: 'Steer' }).click();

  await answers(page).filter({ hasText: 'Steered by: use the name result.txt instead' }).waitFor();
  await finishedTurns(page, 1);
  expect(await page.getByRole('article', { name: 'Tool write_file' }).getByLabel('Tool status').textContent()).toBe('rejected');
  expect(fs.existsSync(path.join(workspace, 'out.txt'))).toBe(false);
  const stored = await storedMessages(sid);
  expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'function_result', 'user', 'assistant']);
  expect(textOf(stored[3])).toBe('use the name result.txt instead');
  expect(textOf(stored[4])).toBe('Steered by: use the name result.txt instead');
  await eventually(() => page.getByRole('button', { name: 'Compact' }).isEnabled(), (on) => on, 'Compact enabled once idle');
});

test('the thinking picker stores the level the model supports', async () => {
  const sid = await newSession('anthropic/claude-sonnet-4-6');
  const page = await open(sid);
  const thinking = page.getByRole('combobox', { name: 'Reasoning' });
  await eventually(() => page.getByRole('combobox', { name: 'Model' }).inputValue(), (v) => v === 'anthropic/claude-sonnet-4-6', 'the model shown');
  await thinking.selectOption('high');
  await eventually(async () => (await api('GET', `/api/sessions/${sid}`)).body.thinking_level, (l) => l === 'high', 'the stored level');
  await thinking.selectOption('minimal');
  await eventually(async () => (await api('GET', `/api/sessions/${sid}`)).body.thinking_level, (l) => l === 'minimal', 'the stored level');
  // The page shows what the session has (read again after the change).
  await eventually(() => thinking.inputValue(), (v) => v === 'minimal', 'the level shown');
  await page.reload();
  await page.getByRole('status', { name: 'Connection' }).filter({ hasText: 'live' }).waitFor();
  await eventually(() => page.getByRole('combobox', { name: 'Reasoning' }).inputValue(), (v) => v === 'minimal', 'the level shown after a reload');
});

test('the transcript downloads as markdown and as org: the files hold what the gateway renders', async () => {
  const sid = await newSession('scripted/echo');
  const page = await open(sid);
  await send(page, 'keep this for the record');
  await answers(page).filter({ hasText: 'You said: keep this for the record' }).waitFor();
  await finishedTurns(page, 1);

  for (const [button, format, ext] of [
    ['Markdown', 'markdown', 'md'],
    ['Org', 'org', 'org'],
  ] as const) {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button, exact: true }).click()]);
    expect(download.suggestedFilename()).toBe(`${sid}.${ext}`);
    const text = fs.readFileSync((await download.path())!, 'utf8');
    const rendered = await fetch(`${web.stack.urls.gateway}/api/sessions/${sid}/transcript?format=${format}`).then((r) => r.text());
    expect(text).toBe(rendered);
    expect(text).toContain('keep this for the record');
    expect(text).toContain('You said: keep this for the record');
    if (format === 'org') expect(text).toMatch(/^#\+TITLE:/m);
  }
});

test('the settings panel: each change is the session’s; a change made with curl shows on the page after the next turn', async () => {
  const sid = await newSession('scripted/echo');
  const page = await open(sid);
  await page.getByRole('button', { name: 'Settings' }).click();
  const panel = page.getByRole('complementary', { name: 'Settings' });
  await panel.getByRole('checkbox', { name: 'Auto-compaction' }).waitFor();
  expect(await settingsOf(sid)).toMatchObject({ auto_compaction: true, auto_retry: true, approval: { auto_approve_readonly: true, always_allow: [], timeout_s: 600, default_decision: 'reject' } });

  await panel.getByRole('checkbox', { name: 'Auto-compaction' }).uncheck();
  await eventually(() => settingsOf(sid), (s) => s.auto_compaction === false, 'auto-compaction off');
  await panel.getByRole('checkbox', { name: 'Auto-retry' }).uncheck();
  await eventually(() => settingsOf(sid), (s) => s.auto_retry === false, 'auto-retry off');
  await panel.getByRole('checkbox', { name: 'Auto-approve read-only tools' }).uncheck();
  await eventually(() => settingsOf(sid), (s) => s.approval.auto_approve_readonly === false, 'read-only tools ask');
  await panel.getByRole('spinbutton', { name: 'Wait for a person (seconds)' }).fill('120');
  await panel.getByRole('spinbutton', { name: 'Wait for a person (seconds)' }).press('Enter');
  await eventually(() => settingsOf(sid), (s) => s.approval.timeout_s === 120, 'the approval timeout');
  await panel.getByRole('combobox', { name: 'Then' }).selectOption('approve');
  await eventually(() => settingsOf(sid), (s) => s.approval.default_decision === 'approve', 'the decision on timeout');
  await panel.getByRole('checkbox', { name: 'Plan mode' }).check();
  await eventually(() => settingsOf(sid), (s) => s.approval.plan_mode === true, 'plan mode on');
  await panel.getByRole('checkbox', { name: 'Plan mode' }).uncheck();
  await eventually(() => settingsOf(sid), (s) => s.approval.plan_mode === false, 'plan mode off');
  await panel.getByRole('textbox', { name: 'Session name' }).fill('Renamed on the page');
  await panel.getByRole('button', { name: 'Rename' }).click();
  await eventually(() => settingsOf(sid), (s) => s.name === 'Renamed on the page', 'the name');
  await page.getByRole('heading', { level: 1, name: 'Renamed on the page' }).waitFor();
  // The session list shows the name too, and so does the HTTP session view.
  await page.getByRole('navigation').getByRole('link', { name: 'Renamed on the page' }).waitFor();
  expect((await api('GET', `/api/sessions/${sid}`)).body.name).toBe('Renamed on the page');
  // The other settings were left as they were.
  expect((await settingsOf(sid)).approval).toEqual({ auto_approve_readonly: false, always_allow: [], timeout_s: 120, default_decision: 'approve', plan_mode: false });

  // Changed elsewhere (curl), then a turn: the page shows the change.
  const patched = await api('PATCH', `/api/sessions/${sid}/settings`, { auto_compaction: true, approval: { always_allow: ['write_file', 'shell'] } });
  expect(patched.status).toBe(200);
  await send(page, 'anything');
  await finishedTurns(page, 1);
  await eventually(() => panel.getByRole('checkbox', { name: 'Auto-compaction' }).isChecked(), (on) => on, 'auto-compaction shown on');
  await panel.getByRole('button', { name: 'Remove write_file' }).waitFor();
  expect(await panel.getByRole('list', { name: 'Always allowed' }).getByRole('listitem').allTextContents()).toEqual(['write_fileremove', 'shellremove']);
  await web.browser.screenshot(page, 'settings');

  // Removing one tool keeps the others.
  await panel.getByRole('button', { name: 'Remove write_file' }).click();
  await eventually(() => settingsOf(sid), (s) => JSON.stringify(s.approval.always_allow) === '["shell"]', 'write_file removed');
  await eventually(() => panel.getByRole('button', { name: 'Remove write_file' }).count(), (n) => n === 0, 'the list redrawn');
  expect(await panel.getByRole('button', { name: 'Remove shell' }).count()).toBe(1);

  // Esc closes the panel; the button opens it again.
  await panel.getByRole('checkbox', { name: 'Auto-retry' }).focus();
  await page.keyboard.press('Escape');
  await eventually(() => panel.count(), (n) => n === 0, 'the panel closed');
  expect(await page.getByRole('button', { name: 'Settings' }).getAttribute('aria-expanded')).toBe('false');
});

test('Compact summarises the older conversation: the summary shows in every tab', async () => {
  const sid = await newSession('scripted/echo');
  const page = await open(sid);
  const other = await open(sid);
  for (const text of ['the first question', 'the second question']) {
    await send(page, text);
    await answers(page).filter({ hasText: `You said: ${text}` }).waitFor();
  }
  await finishedTurns(page, 2);
  await page.getByRole('button', { name: 'Compact' }).click();
  // The echo model "summarises" by echoing the request, which starts with the conversation to summarise.
  for (const p of [page, other]) {
    const row = p.locator('.notice').filter({ hasText: 'Compacted:' });
    await row.waitFor();
    expect(await row.textContent()).toMatch(/^Compacted: You said: Summarise this conversation:/);
    expect(await row.textContent()).toContain('the first question');
  }
  await eventually(() => page.getByRole('button', { name: 'Compact' }).isEnabled(), (on) => on, 'Compact enabled again');
  // The next turn reads the summary and the kept turn, and goes on.
  await send(page, 'after the summary');
  await answers(page).filter({ hasText: 'You said: after the summary' }).waitFor();
});

test('fork from an answer: a new session holding the conversation up to it opens, and forks again from its own messages', async () => {
  fs.writeFileSync(path.join(workspace, 'notes.txt'), 'hello world\n');
  const sid = await newSession('scripted/web-showcase');
  const page = await open(sid);
  await send(page, 'Greet strand in the note, then show me how to read it');
  await page.getByRole('button', { name: 'Approve', exact: true }).click();
  await finishedTurns(page, 1);
  expect(fs.readFileSync(path.join(workspace, 'notes.txt'), 'utf8')).toBe('hello strand\n');
  const tool = page.getByRole('article', { name: 'Tool edit_file' });
  expect(await tool.getByLabel('Change').textContent()).toBe('- hello world+ hello strand');
  expect(await answers(page).last().locator('pre code').textContent()).toBe(CODE);
  await page.mouse.move(0, 0);
  await web.browser.screenshot(page, 'chat');

  await api('POST', `/api/sessions/${sid}/model`, { provider: 'scripted', model_id: 'echo' });
  await send(page, 'and a second turn');
  await answers(page).filter({ hasText: 'You said: and a second turn' }).waitFor();
  await finishedTurns(page, 2);
  // The step that asked for the edit cannot end a fork (its call would have no result); the answers can.
  expect(await answers(page).nth(0).getByRole('button', { name: 'Fork from here' }).count()).toBe(0);
  expect(await answers(page).count()).toBe(3);

  await answers(page).nth(1).getByRole('button', { name: 'Fork from here' }).click();
  const hash = () => Promise.resolve(decodeURIComponent(new URL(page.url()).hash));
  const forked = (await eventually(hash, (h) => h.startsWith('#session=') && !h.endsWith(sid), 'the fork opened')).slice('#session='.length);
  await answers(page).filter({ hasText: 'Read it back with' }).waitFor();
  expect(await prompts(page).allTextContents()).toEqual(['Greet strand in the note, then show me how to read itFork from here']);
  const copied = await storedMessages(forked);
  expect(copied.map((m) => m.role)).toEqual(['user', 'assistant', 'function_result', 'assistant']);
  expect(textOf(copied[3])).toContain('Read it back with');

  // The fork's messages have ids of their own: its prompt forks too.
  await prompts(page).first().getByRole('button', { name: 'Fork from here' }).click();
  const again = (await eventually(hash, (h) => !h.endsWith(forked) && !h.endsWith(sid), 'the second fork opened')).slice('#session='.length);
  await prompts(page).first().waitFor();
  expect((await storedMessages(again)).map((m) => m.role)).toEqual(['user']);
});
