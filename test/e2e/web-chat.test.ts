import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { eventually } from '../harness/browser';
import { http } from '../harness/stack-fixture';
import { useWebStack } from '../harness/web-stack';

/**
 * strand's chat page in real Chromium against a real stack (docs/web.md): a session made from the
 * page, a prompt in markdown answered with highlighted code, a whole turn with an approval (the diff
 * shown first, the file changed after), a rejection with a reason the model reads, Stop, a gateway
 * restarted mid-answer (the page resumes from its cursor and shows exactly the stored answer), and
 * two tabs plus a plain HTTP client on one session. Every page must reach its own origin only, and
 * its CSP must block nothing. Outcomes are read through roles, names and text.
 */
jest.setTimeout(120_000);

const SCRIPTS: Record<string, unknown[]> = {
  'web-edit': [
    [{ type: 'thinking', text: 'The note says world; the person wants strand.' }, { type: 'text', text: 'I will edit the note.' }, { type: 'tool_call', name: 'edit_file', args: { path: 'notes.txt', old: 'world', new: 'strand' } }],
    [{ type: 'text', text: 'Done: {{tool_result_first_line}}' }],
  ],
  // A first step of a tool call only (no text): the page draws its tool row, and no empty answer box.
  'web-tool-only': [[{ type: 'tool_call', name: 'read_file', args: { path: 'notes.txt' } }], [{ type: 'text', text: 'It reads {{tool_result_first_line}}' }]],
  'web-delete': [[{ type: 'tool_call', name: 'delete_file', args: { path: 'keep.txt' } }], [{ type: 'text', text: 'Understood, I left it.' }]],
  // 16 s of answer whatever STRAND_SCRIPTED_DELTA_DELAY_MS says: a follow-up sent meanwhile (after a model
  // change the test waits for) must find it still running, however loaded the machine is.
  'web-long': [[...Array.from({ length: 40 }, (_, i) => [{ type: 'text', text: `Part ${i} of a long answer. ` }, { type: 'delay', ms: 400 }]).flat(), { type: 'text', text: 'That is the end.' }]],
};

const web = useWebStack({ scripts: SCRIPTS, env: { STRAND_SCRIPTED_DELTA_DELAY_MS: '5' } });
let workspace: string;

beforeEach(() => {
  workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'strand-web-project-')));
});

afterEach(() => {
  fs.rmSync(workspace, { recursive: true, force: true });
});

async function open(hash = '', context?: BrowserContext): Promise<Page> {
  return (await web.open(`/${hash}`, context)).page;
}

async function newSession(model?: string): Promise<string> {
  const res = await http(web.stack.urls.gateway, 'POST', '/api/sessions', { project_path: workspace, ...(model ? { model } : {}) });
  expect(res.status).toBe(201);
  return res.body.session_id;
}

async function stored(sessionId: string): Promise<any[]> {
  return (await http(web.stack.urls.gateway, 'GET', `/api/sessions/${sessionId}/messages`)).body.messages.map((m: any) => m.message).filter(Boolean);
}

const lastAnswer = async (sessionId: string) => {
  const last = (await stored(sessionId)).filter((m) => m.role === 'assistant').at(-1);
  return { text: last.content.filter((b: any) => b.type === 'text').map((b: any) => b.text).join(''), stop: last.stop_reason as string };
};

const send = async (page: Page, text: string) => {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
};

const answers = (page: Page) => page.getByRole('article', { name: 'Answer' });
const turnEnds = (page: Page) => page.locator('.turn-end');

test('a session made on the page; Enter sends, Shift-Enter breaks the line; the answer is markdown with highlighted code', async () => {
  const page = await open();
  const csp = (await http(web.stack.urls.gateway, 'GET', '/')).headers.get('content-security-policy')!;
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("connect-src 'self'");
  expect(csp).not.toContain('unsafe-inline');

  await page.getByRole('textbox', { name: 'Project folder' }).fill(workspace);
  await page.getByRole('button', { name: 'New session' }).click();
  await page.getByRole('heading', { level: 2, name: workspace }).waitFor();
  await page.getByRole('status', { name: 'Connection' }).filter({ hasText: 'live' }).waitFor();

  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('Show me **code**:');
  await box.press('Shift+Enter');
  await box.pressSequentially('```ts');
  await box.press('Shift+Enter');
  await box.pressSequentially('const answer: number = 42;');
  await box.press('Shift+Enter');
  await box.pressSequentially('```');
  expect(await box.inputValue()).toBe('Show me **code**:\n```ts\nconst answer: number = 42;\n```');
  await box.press('Enter');

  await turnEnds(page).filter({ hasText: 'done' }).waitFor();
  expect(await box.inputValue()).toBe('');
  const answer = answers(page).last();
  expect(await answer.locator('strong').textContent()).toBe('code');
  expect(await answer.locator('pre code').textContent()).toBe('const answer: number = 42;');
  expect(await answer.locator('pre code .hljs-keyword').first().textContent()).toBe('const');
  expect(await page.getByRole('article', { name: 'Prompt' }).textContent()).toContain('Show me **code**:');
  await web.browser.screenshot(page, 'markdown-answer');
});

test("the model's text cannot inject markup: raw HTML shows as text, script links are dropped, images are not loaded", async () => {
  const sid = await newSession();
  const page = await open(`#session=${sid}`);
  await send(page, 'A <img src="/nope.png" onerror="document.title=1"> <b>bold</b> [bad](javascript:alert(1)) [good](https://example.org/a) ![pic](/pic.png)');
  await turnEnds(page).filter({ hasText: 'done' }).waitFor();
  const answer = answers(page).last();
  expect(await answer.textContent()).toContain('<img src="/nope.png" onerror="document.title=1"> <b>bold</b>');
  expect(await answer.locator('img, b, script').count()).toBe(0);
  const links = answer.getByRole('link');
  expect(await links.count()).toBe(1);
  expect([await links.textContent(), await links.getAttribute('href'), await links.getAttribute('rel')]).toEqual(['good', 'https://example.org/a', 'noopener noreferrer nofollow']);
  expect(await answer.textContent()).toContain('bad');
  expect(await answer.textContent()).toContain('[image: pic]');
});

test('a whole turn with an approval: the diff before, Approve, the file changed, the answer and the changed file listed', async () => {
  fs.writeFileSync(path.join(workspace, 'notes.txt'), 'hello world\n');
  const sid = await newSession('scripted/web-edit');
  const page = await open(`#session=${sid}`);
  await page.getByRole('status', { name: 'Connection' }).filter({ hasText: 'live' }).waitFor();
  await send(page, 'Please say strand in the note');

  const approve = page.getByRole('button', { name: 'Approve', exact: true });
  await approve.waitFor();
  const tool = page.getByRole('article', { name: 'Tool edit_file' });
  expect(await tool.getByLabel('Change').textContent()).toBe('- world+ strand');
  expect(await tool.getByLabel('Tool status').textContent()).toBe('waiting for approval');
  expect(await page.getByRole('button', { name: 'Always' }).count()).toBe(1);
  expect(await page.getByRole('button', { name: 'Reject' }).count()).toBe(1);
  expect(fs.readFileSync(path.join(workspace, 'notes.txt'), 'utf8')).toBe('hello world\n');
  await web.browser.screenshot(page, 'approval');

  await approve.click();
  await turnEnds(page).filter({ hasText: 'done' }).waitFor();
  expect(fs.readFileSync(path.join(workspace, 'notes.txt'), 'utf8')).toBe('hello strand\n');
  expect(await tool.getByLabel('Tool status').textContent()).toBe('done');
  expect(await page.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(0);
  expect(await answers(page).last().textContent()).toContain('Done:');
  expect(await page.getByRole('list', { name: 'Files changed' }).textContent()).toContain('notes.txt');
  // The thinking is there, folded.
  const thinking = page.locator('details.thinking');
  expect(await thinking.getAttribute('open')).toBeNull();
  await thinking.locator('summary').click();
  expect(await thinking.textContent()).toContain('The note says world');
  await web.browser.screenshot(page, 'turn-done');
});

test('a step of tool calls only draws its tool row and no empty answer box, live and after a reload', async () => {
  fs.writeFileSync(path.join(workspace, 'notes.txt'), 'hello world\n');
  const sid = await newSession('scripted/web-tool-only');
  const page = await open(`#session=${sid}`);
  await send(page, 'What does the note say?');
  await turnEnds(page).filter({ hasText: 'done' }).waitFor();
  await page.getByRole('article', { name: 'Tool read_file' }).waitFor();
  const drawn = async () => (await answers(page).allTextContents()).map((t) => t.trim());
  await eventually(drawn, (a) => a.length === 1, 'one answer box');
  expect((await drawn())[0]).toContain('It reads');
  await page.reload();
  await page.getByRole('article', { name: 'Tool read_file' }).waitFor();
  await answers(page).first().waitFor();
  expect(await answers(page).count()).toBe(1);
});

test('a rejection with a reason: the tool is not run and the model reads the reason', async () => {
  fs.writeFileSync(path.join(workspace, 'keep.txt'), 'precious\n');
  const sid = await newSession('scripted/web-delete');
  const page = await open(`#session=${sid}`);
  await send(page, 'Delete keep.txt');
  await page.getByRole('button', { name: 'Reject' }).waitFor();
  await page.getByRole('textbox', { name: 'Reason' }).fill('that file stays');
  await page.getByRole('button', { name: 'Reject' }).click();

  await turnEnds(page).filter({ hasText: 'done' }).waitFor();
  expect(fs.existsSync(path.join(workspace, 'keep.txt'))).toBe(true);
  const tool = page.getByRole('article', { name: 'Tool delete_file' });
  expect(await tool.getByLabel('Tool status').textContent()).toBe('rejected');
  expect(await tool.textContent()).toContain('that file stays');
  expect((await answers(page).last().locator('.markdown').textContent())!.trim()).toBe('Understood, I left it.');
  const result = (await stored(sid)).find((m) => m.role === 'function_result');
  expect(JSON.stringify(result.content)).toContain('that file stays');
});

test('Esc stops the running turn: the page shows exactly the stored partial answer', async () => {
  const sid = await newSession('scripted/slow');
  const page = await open(`#session=${sid}`);
  await send(page, 'a long answer please');
  await answers(page).filter({ hasText: 'slowly on purpose' }).waitFor();
  expect(await page.getByRole('button', { name: 'Stop' }).isEnabled()).toBe(true);
  await page.keyboard.press('Escape');
  await turnEnds(page).filter({ hasText: 'turn stopped' }).waitFor();
  await eventually(() => page.getByRole('button', { name: 'Stop' }).isDisabled(), (d) => d, 'Stop disabled once idle');
  const last = await lastAnswer(sid);
  expect(last.stop).toBe('aborted');
  expect(last.text).not.toContain('and that is the end.');
  expect((await answers(page).last().locator('.markdown').textContent())!.trim()).toBe(last.text.trim());
});

test('the gateway killed and restarted mid-answer: the page reconnects by itself and shows the answer once, exactly', async () => {
  const sid = await newSession('scripted/slow');
  const page = await open(`#session=${sid}`);
  await page.getByRole('status', { name: 'Connection' }).filter({ hasText: 'live' }).waitFor();
  await send(page, 'survive a restart');
  await answers(page).filter({ hasText: 'slowly on purpose' }).waitFor();
  web.dropGateway();
  await web.stack.process('gateway').kill();
  await page.getByRole('status', { name: 'Connection' }).filter({ hasText: 'reconnecting' }).waitFor();
  await web.browser.screenshot(page, 'reconnecting');
  await web.stack.restart('gateway');
  await turnEnds(page).filter({ hasText: 'done' }).waitFor({ timeout: 90_000 });
  await page.getByRole('status', { name: 'Connection' }).filter({ hasText: 'live' }).waitFor();
  const last = await lastAnswer(sid);
  expect(last.text).toMatch(/^Here is a long answer\. .*and that is the end\.$/s);
  expect(await answers(page).count()).toBe(1);
  expect((await answers(page).locator('.markdown').textContent())!.trim()).toBe(last.text);
});

test('two tabs and a plain HTTP client on one session stay in step: a prompt, an approval and the answer show everywhere', async () => {
  fs.writeFileSync(path.join(workspace, 'notes.txt'), 'hello world\n');
  const sid = await newSession('scripted/web-edit');
  const context = await web.browser.context();
  const first = await open(`#session=${sid}`, context);
  const second = await open(`#session=${sid}`, context);
  for (const p of [first, second]) await p.getByRole('status', { name: 'Connection' }).filter({ hasText: 'live' }).waitFor();

  await send(first, 'from the first tab');
  // The second tab shows the prompt it did not send (read from the store) and the approval.
  await second.getByRole('article', { name: 'Prompt' }).filter({ hasText: 'from the first tab' }).waitFor();
  await second.getByRole('button', { name: 'Approve', exact: true }).click();
  for (const p of [first, second]) await turnEnds(p).filter({ hasText: 'done' }).waitFor();
  expect(await first.getByRole('article', { name: 'Tool edit_file' }).getByLabel('Tool status').textContent()).toBe('done');
  await web.browser.screenshot(second, 'second-tab');

  // A client of the HTTP API drives the session: both tabs show its turn.
  await http(web.stack.urls.gateway, 'POST', `/api/sessions/${sid}/model`, { provider: 'scripted', model_id: 'echo' });
  const prompt = await http(web.stack.urls.gateway, 'POST', `/api/sessions/${sid}/prompt`, { text: 'from curl' });
  expect(prompt.status).toBe(202);
  for (const p of [first, second]) {
    await p.getByRole('article', { name: 'Prompt' }).filter({ hasText: 'from curl' }).waitFor();
    await answers(p).filter({ hasText: 'You said: from curl' }).waitFor();
    await eventually(() => turnEnds(p).filter({ hasText: 'done' }).count(), (n) => n === 2, 'two finished turns');
    // The model picker follows the change made elsewhere.
    await eventually(() => p.getByRole('combobox', { name: 'Model' }).inputValue(), (v) => v === 'scripted/echo', 'the model shown');
  }
  const texts = async (p: Page) => (await answers(p).allTextContents()).map((t) => t.trim());
  expect(await texts(first)).toEqual(await texts(second));
});

test('a follow-up sent while a turn runs is queued and then answered; the model set from the page; fork from a prompt; delete', async () => {
  const sid = await newSession('scripted/web-long');
  const page = await open(`#session=${sid}`);
  await send(page, 'the long one');
  await answers(page).filter({ hasText: 'Part 1 of a long answer' }).waitFor();
  // The model picked on the page applies to the next turn (the running one keeps its own).
  const model = page.getByRole('combobox', { name: 'Model' });
  await model.fill('scripted/echo');
  await model.press('Enter');
  await eventually(async () => (await http(web.stack.urls.gateway, 'GET', `/api/sessions/${sid}`)).body.model, (m) => m === 'scripted/echo', 'the session model');
  await send(page, 'and then this');
  await page.getByRole('region', { name: 'Queued follow-ups' }).filter({ hasText: 'and then this' }).waitFor();
  await answers(page).filter({ hasText: 'You said: and then this' }).waitFor({ timeout: 60_000 });
  await eventually(() => turnEnds(page).filter({ hasText: 'done' }).count(), (n) => n === 2, 'two finished turns');
  expect(await page.getByRole('region', { name: 'Queued follow-ups' }).count()).toBe(0);
  expect((await page.getByRole('article', { name: 'Prompt' }).allTextContents()).map((t) => t.replace('Fork from here', '').replace('Undo this turn', ''))).toEqual(['the long one', 'and then this']);

  // Fork from the second prompt: a new session opens, holding the conversation up to it.
  await page.getByRole('article', { name: 'Prompt' }).last().getByRole('button', { name: 'Fork from here' }).click();
  const hash = () => Promise.resolve(new URL(page.url()).hash);
  await eventually(hash, (h) => h.startsWith('#session=') && !h.endsWith(sid), 'the fork opened');
  const forked = decodeURIComponent((await hash()).slice('#session='.length));
  await page.getByRole('article', { name: 'Prompt' }).filter({ hasText: 'the long one' }).waitFor();
  expect((await http(web.stack.urls.gateway, 'GET', `/api/sessions/${forked}`)).status).toBe(200);

  // Delete the original from the list: asked once more in place, then gone. What the page may still ask
  // about it afterwards answers 404, and nothing else may fail.
  web.allowFailed((f) => f.startsWith('404 ') && f.includes(encodeURIComponent(sid)));
  const title = (await http(web.stack.urls.gateway, 'GET', `/api/sessions/${sid}`)).body.title || sid;
  await page.getByRole('link', { name: new RegExp(`^${title}`) }).first().waitFor();
  // The fork has the same title: the original's row is the one linking to its id.
  const remove = page.getByRole('listitem').filter({ has: page.locator(`a[href="#session=${encodeURIComponent(sid)}"]`) }).getByRole('button', { name: `Delete ${title}` });
  await remove.click();
  await page.getByRole('button', { name: 'Confirm delete' }).click();
  await eventually(async () => (await http(web.stack.urls.gateway, 'GET', `/api/sessions/${sid}`)).status, (s) => s === 404, 'the session deleted');
  expect((await http(web.stack.urls.gateway, 'GET', `/api/sessions/${forked}`)).status).toBe(200);
});
