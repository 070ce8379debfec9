import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pageErrors, startBrowser, type TestBrowser, type WatchedPage } from '../harness/browser';
import { startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * The chat page on a gateway with tokens (docs/web.md, "Tokens"): it asks for one, says so when the
 * token is refused, works with the right one (REST and the event stream alike), keeps it for the tab
 * across a reload but not for another tab, and never puts it in a URL.
 */
jest.setTimeout(120_000);

const TOKEN = 'tok-web-page';
let stack: TestStack;
let browser: TestBrowser;
let workspace: string;
const pages: WatchedPage[] = [];

beforeAll(async () => {
  workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'strand-web-auth-')));
  [stack, browser] = await Promise.all([startTestStack({ STRAND_TOKENS: `${TOKEN}:web` }), startBrowser()]);
}, 180_000);

afterAll(async () => {
  for (const p of pages) {
    expect(p.requests.filter((u) => !u.startsWith(`${stack.urls.gateway}/`) || u.includes(TOKEN))).toEqual([]);
    // The refused token's 401 answers are logged by Chromium as failed loads: nothing else may be.
    expect(pageErrors(p).filter((e) => !/status of 401/.test(e))).toEqual([]);
  }
  await browser?.close();
  await stack?.teardown();
  fs.rmSync(workspace, { recursive: true, force: true });
}, 60_000);

test('the page asks for a token, refuses a wrong one, works with the right one and keeps it for the tab only', async () => {
  const context = await browser.context();
  const watched = await browser.open(`${stack.urls.gateway}/`, context);
  pages.push(watched);
  const page = watched.page;
  const dialog = page.getByRole('dialog', { name: 'This gateway needs an access token' });
  await dialog.waitFor();
  await browser.screenshot(page, 'token-prompt');

  await page.getByRole('textbox', { name: 'Access token' }).fill('not-the-token');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await dialog.getByRole('alert').filter({ hasText: 'That token was refused.' }).waitFor();

  await page.getByRole('textbox', { name: 'Access token' }).fill(TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.getByRole('textbox', { name: 'Project folder' }).fill(workspace);
  await page.getByRole('button', { name: 'New session' }).click();
  await page.getByRole('status', { name: 'Connection' }).filter({ hasText: 'live' }).waitFor();
  await page.getByRole('textbox', { name: 'Message' }).fill('hello with a token');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await page.getByRole('article', { name: 'Answer' }).filter({ hasText: 'You said: hello with a token' }).waitFor();

  // A reload keeps the tab's token: the session opens again without asking.
  await page.reload();
  await page.getByRole('article', { name: 'Answer' }).filter({ hasText: 'You said: hello with a token' }).waitFor();
  expect(await dialog.count()).toBe(0);

  // Another tab has its own sessionStorage: it asks.
  const other = await browser.open(`${stack.urls.gateway}/`, context);
  pages.push(other);
  await other.page.getByRole('dialog', { name: 'This gateway needs an access token' }).waitFor();
});
