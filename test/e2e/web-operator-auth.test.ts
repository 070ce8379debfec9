import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { pageErrors, startBrowser, type TestBrowser, type WatchedPage } from '../harness/browser';
import { startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * The operator view on a gateway with tokens (docs/operator.md): it asks for a token with the chat
 * page's prompt, says so when one is refused, then shows the running turns of that token's principal
 * only, Cancel works with it, a reload keeps it for the tab, and it never goes into a URL.
 */
jest.setTimeout(120_000);

const ALICE = 'tok-operator-alice';
const BOB = 'tok-operator-bob';
let stack: TestStack;
let browser: TestBrowser;
let workspace: string;
const pages: WatchedPage[] = [];

beforeAll(async () => {
  workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'strand-operator-auth-')));
  [stack, browser] = await Promise.all([startTestStack({ STRAND_TOKENS: `${ALICE}:alice,${BOB}:bob` }), startBrowser()]);
}, 180_000);

afterAll(async () => {
  for (const p of pages) {
    expect(p.requests.filter((u) => !u.startsWith(`${stack.urls.gateway}/`) || u.includes(ALICE))).toEqual([]);
    // The refused token's 401 answers are logged by Chromium as failed loads: nothing else may be.
    expect(pageErrors(p).filter((e) => !/status of 401/.test(e))).toEqual([]);
  }
  await browser?.close();
  await stack?.teardown();
  fs.rmSync(workspace, { recursive: true, force: true });
}, 60_000);

async function api(token: string, method: string, route: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${stack.urls.gateway}${route}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

/** A slow turn in a new session of the token's principal. */
async function startSlowTurn(token: string): Promise<string> {
  const created = await api(token, 'POST', '/api/sessions', { project_path: workspace, model: 'scripted/slow' });
  expect(created.status).toBe(201);
  const sid = created.body.session_id as string;
  expect((await api(token, 'POST', `/api/sessions/${sid}/prompt`, { text: 'a long answer', request_id: `op-auth-${sid}` })).status).toBe(202);
  return sid;
}

const jobRow = (page: Page, sid: string) => page.getByRole('table', { name: 'Running turns' }).getByRole('row').filter({ has: page.getByRole('link', { name: sid, exact: true }) });

test("the page asks for a token, refuses a wrong one, then shows and cancels that principal's turns only; a reload keeps the token", async () => {
  const [alices, bobs] = [await startSlowTurn(ALICE), await startSlowTurn(BOB)];
  const watched = await browser.open(`${stack.urls.gateway}/operator`);
  pages.push(watched);
  const page = watched.page;
  const dialog = page.getByRole('dialog', { name: 'This gateway needs an access token' });
  await dialog.waitFor();

  await page.getByRole('textbox', { name: 'Access token' }).fill('not-the-token');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await dialog.getByRole('alert').filter({ hasText: 'That token was refused.' }).waitFor();
  await page.getByRole('textbox', { name: 'Access token' }).fill(ALICE);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.getByRole('status', { name: 'Connection' }).filter({ hasText: 'live' }).waitFor();

  await jobRow(page, alices).waitFor();
  // Bob's turn is running too, but not Alice's to see.
  expect((await api(BOB, 'GET', '/api/turns')).body.turns.map((j: any) => j.session_id)).toContain(bobs);
  expect(await page.getByRole('link', { name: bobs }).count()).toBe(0);

  await page.reload();
  await jobRow(page, alices).waitFor();
  expect(await dialog.count()).toBe(0);
  await jobRow(page, alices).getByRole('button', { name: 'Cancel' }).click();
  await jobRow(page, alices).waitFor({ state: 'detached' });
  expect((await api(ALICE, 'GET', '/api/turns')).body.turns).toEqual([]);
  expect((await api(BOB, 'POST', `/api/turns/${encodeURIComponent((await api(BOB, 'GET', '/api/turns')).body.turns[0].job_id)}/cancel`)).body).toEqual({ status: 'cancelled' });
});
