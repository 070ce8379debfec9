import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually } from '../harness/browser';
import { http } from '../harness/stack-fixture';
import { useWebStack } from '../harness/web-stack';

/**
 * The page and budgets (docs/budgets.md), in real Chromium against a real stack: the settings panel's
 * token cap is the session's, a turn that reaches it shows a line saying so and a working line that
 * it waits, and raising the cap in the panel lets the turn finish. The scripted model reports exact
 * usage: 150 tokens for its first step, which lists the project.
 */
jest.setTimeout(120_000);

const web = useWebStack({
  scripts: {
    'web-budget': [
      [{ type: 'text', text: 'Looking around.' }, { type: 'tool_call', name: 'list_files', args: { path: '.' } }, { type: 'usage', input: 100, output: 50 }],
      [{ type: 'text', text: 'All done.' }, { type: 'usage', input: 200, output: 20 }],
    ],
  },
  env: { STRAND_SCRIPTED_DELTA_DELAY_MS: '5' },
});
let workspace: string;

beforeEach(() => {
  workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'strand-web-budget-')));
});

afterEach(() => {
  fs.rmSync(workspace, { recursive: true, force: true });
});

const api = (method: string, route: string, body?: unknown) => http(web.stack.urls.gateway, method, route, body);

test('a token cap set in the settings panel pauses the turn with a line saying so; raising it there lets the turn finish', async () => {
  const created = await api('POST', '/api/sessions', { project_path: workspace, model: 'scripted/web-budget' });
  const sid = created.body.session_id as string;
  const { page } = await web.open(`/#session=${sid}`);
  await page.getByRole('status', { name: 'Connection' }).filter({ hasText: 'live' }).waitFor();

  await page.getByRole('button', { name: 'Settings' }).click();
  const panel = page.getByRole('complementary', { name: 'Settings' });
  const tokenCap = panel.getByRole('spinbutton', { name: 'Token cap (empty: none)' });
  await tokenCap.fill('100');
  await tokenCap.press('Enter');
  await eventually(async () => (await api('GET', `/api/sessions/${sid}/settings`)).body.budget, (b) => b?.max_tokens === 100, 'the token cap stored');

  await page.getByRole('textbox', { name: 'Message' }).fill('look around');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  const line = page.locator('.notice').filter({ hasText: 'budget reached' });
  await line.waitFor();
  expect(await line.textContent()).toBe('budget reached: spent $0 and 150 tokens of 100 tokens; the turn waits. Raise it in Settings → Budget to continue, or Stop the turn');
  await page.getByText('waiting for a higher budget (Settings → Budget)').waitFor();
  expect(await page.getByRole('article', { name: 'Answer' }).count()).toBe(1);

  await tokenCap.fill('10000');
  await tokenCap.press('Enter');
  await eventually(() => page.locator('.turn-end').filter({ hasText: 'done' }).count(), (n) => n === 1, 'the turn finished');
  await eventually(() => page.getByRole('article', { name: 'Answer' }).count(), (n) => n === 2, 'the second answer');
  expect((await api('GET', `/api/sessions/${sid}/settings`)).body.budget).toEqual({ max_tokens: 10000 });
});
