import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { eventually } from '../harness/browser';
import { http } from '../harness/stack-fixture';
import { useWebStack } from '../harness/web-stack';

/**
 * Undo and Redo on the page (docs/web.md, docs/undo.md), in real Chromium against a real stack: a
 * scripted model writes a file; "Undo this turn" puts it back and the turn leaves the page, Redo in the
 * session bar brings both back, and a second tab on the session follows both (it re-reads the
 * conversation on the revert's file.changed). A file changed by hand since shows the conflict with its
 * path, and Overwrite reverts it anyway.
 */
jest.setTimeout(150_000);

const web = useWebStack({
  scripts: {
    'web-undo': [
      [{ type: 'text', text: 'Writing the notes.' }, { type: 'tool_call', name: 'write_file', args: { path: 'notes.txt', content: 'by the agent\n' } }],
      [{ type: 'text', text: 'The notes are written.' }],
    ],
  },
});
let workspace: string;

beforeEach(() => {
  workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'strand-web-undo-')));
});

afterEach(() => {
  fs.rmSync(workspace, { recursive: true, force: true });
});

const api = (method: string, route: string, body?: unknown) => http(web.stack.urls.gateway, method, route, body);
const notes = () => fs.readFileSync(path.join(workspace, 'notes.txt'), 'utf8');
const prompts = (page: Page) => page.getByRole('article', { name: 'Prompt' });

/** Waits until the session has `turns` answered prompts and no turn runs. */
async function turnEnded(sid: string, turns: number): Promise<void> {
  await eventually(
    async () => {
      const { messages } = (await api('GET', `/api/sessions/${sid}/messages`)).body;
      const answered = new Set(messages.filter((m: any) => m.message?.role === 'assistant' && m.message.stop_reason !== 'function_call').map((m: any) => m.entry_id.split(':')[0]));
      return answered.size >= turns && (await api('GET', `/api/sessions/${sid}`)).body.active_turn == null;
    },
    (done) => done,
    `turn ${turns} ended`,
  );
}

async function open(sid: string): Promise<Page> {
  const { page } = await web.open(`/#session=${sid}`);
  await page.getByRole('status', { name: 'Connection' }).filter({ hasText: 'live' }).waitFor();
  return page;
}

test('Undo this turn puts the file back and takes the turn off the page (other tabs too); Redo brings both back; a conflict shows its path and Overwrite forces it', async () => {
  fs.writeFileSync(path.join(workspace, 'notes.txt'), 'before\n');
  // The first turn only talks; the undo below is of the second, so the first stays on the page.
  const sid = (await api('POST', '/api/sessions', { project_path: workspace, model: 'scripted/echo' })).body.session_id as string;
  expect((await api('POST', `/api/sessions/${sid}/prompt`, { text: 'warm up' })).status).toBe(202);
  await turnEnded(sid, 1);
  expect((await api('POST', `/api/sessions/${sid}/model`, { provider: 'scripted', model_id: 'web-undo' })).status).toBe(200);
  expect((await api('PATCH', `/api/sessions/${sid}/settings`, { approval: { always_allow: ['write_file'] } })).status).toBe(200);

  const page = await open(sid);
  const other = await open(sid);
  await prompts(page).filter({ hasText: 'warm up' }).waitFor();
  await page.getByRole('textbox', { name: 'Message' }).fill('write the notes');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await page.getByText('The notes are written.').waitFor();
  await turnEnded(sid, 2);
  expect(notes()).toBe('by the agent\n');
  await eventually(() => prompts(other).count(), (n) => n === 2, 'the other tab showing both turns');

  await prompts(page).filter({ hasText: 'write the notes' }).getByRole('button', { name: 'Undo this turn' }).click();
  await eventually(async () => notes(), (text) => text === 'before\n', 'the file put back');
  await eventually(() => prompts(page).count(), (n) => n === 1, 'the undone turn gone from the page');
  expect(await page.getByText('The notes are written.').count()).toBe(0);
  await page.getByText('undone: put back notes.txt').waitFor();
  await eventually(() => prompts(other).count(), (n) => n === 1, 'the undone turn gone from the other tab');
  expect(await prompts(other).first().textContent()).toContain('warm up');

  await page.getByRole('button', { name: 'Redo' }).click();
  await eventually(async () => notes(), (text) => text === 'by the agent\n', 'the file changed again');
  await eventually(() => prompts(page).count(), (n) => n === 2, 'the turn back on the page');
  await page.getByText('The notes are written.').waitFor();
  await eventually(() => prompts(other).count(), (n) => n === 2, 'the turn back in the other tab');
  // The other tab's reading (conversation.moved) can show the turn before this page's redo is answered:
  // Redo goes once the answer is in.
  await eventually(() => page.getByRole('button', { name: 'Redo' }).count(), (n) => n === 0, 'Redo gone once the redo is answered');

  fs.writeFileSync(path.join(workspace, 'notes.txt'), 'by hand\n');
  // The browser logs the refused revert's 409: it is the conflict this part expects, nothing else.
  web.allowFailed((failed) => /^409 POST .*\/api\/sessions\/[^/]+\/revert$/.test(failed));
  await prompts(page).filter({ hasText: 'write the notes' }).getByRole('button', { name: 'Undo this turn' }).click();
  const conflict = page.getByRole('alert', { name: 'Revert conflict' });
  await conflict.waitFor();
  expect(await conflict.getByRole('list', { name: 'Changed files' }).getByRole('listitem').allTextContents()).toEqual(['notes.txt']);
  expect(notes()).toBe('by hand\n');
  expect(await prompts(page).count()).toBe(2);
  await conflict.getByRole('button', { name: 'Overwrite' }).click();
  await eventually(async () => notes(), (text) => text === 'before\n', 'the file overwritten with what it was before the turn');
  await eventually(() => prompts(page).count(), (n) => n === 1, 'the undone turn gone again');
  expect(await page.getByRole('alert', { name: 'Revert conflict' }).count()).toBe(0);
});

test('an undo made elsewhere (curl) of a turn that changed no file takes the turn off every open tab', async () => {
  // No file.changed is sent for it: only conversation.moved tells the pages (docs/undo.md).
  const sid = (await api('POST', '/api/sessions', { project_path: workspace, model: 'scripted/echo' })).body.session_id as string;
  expect((await api('POST', `/api/sessions/${sid}/prompt`, { text: 'first words' })).status).toBe(202);
  await turnEnded(sid, 1);
  const page = await open(sid);
  const other = await open(sid);
  await page.getByRole('textbox', { name: 'Message' }).fill('second words');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await turnEnded(sid, 2);
  await eventually(() => prompts(other).count(), (n) => n === 2, 'the other tab showing both turns');

  const undone = await api('POST', `/api/sessions/${sid}/revert`, { turn_id: 't2' });
  expect(undone.status).toBe(200);
  expect(undone.body.files).toEqual([]);
  for (const tab of [page, other]) await eventually(() => prompts(tab).count(), (n) => n === 1, 'the undone turn gone from a tab');
  expect(await prompts(other).first().textContent()).toContain('first words');
}, 120_000);
