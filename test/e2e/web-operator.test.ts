import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { eventually } from '../harness/browser';
import { http } from '../harness/stack-fixture';
import { useWebStack } from '../harness/web-stack';

/**
 * The operator view (`/operator`, docs/operator.md) in real Chromium against a real stack: a slow
 * turn shows among the running turns with its model, phase and Temporal link, and Cancel stops it
 * (the store holds the turn aborted); a turn failing with a provider error shows under Recent
 * failures with its classified kind; the charts have points and their text summaries count the
 * turns that finished; a gateway gone away is said and recovered from without a reload. Every page
 * reaches its own origin only, logs no error, and its CSP reports no violation.
 */
jest.setTimeout(120_000);

const TEMPORAL_UI = 'http://127.0.0.1:8233';
const SCRIPTS: Record<string, unknown[]> = {
  'op-refused': [[{ type: 'error', kind: 'permanent', status: 400, message: 'scripted refusal for the operator view' }]],
  // Overloaded once, asking for a 30 s wait: the turn sits in its retry long enough to be seen.
  'op-retry': [[{ type: 'error', kind: 'overloaded', retry_after_ms: 30_000, times: 1 }, { type: 'text', text: 'answered after the retry' }]],
};

// Telemetry every 500 ms: the history has points within a test's time (docs/configuration.md).
const web = useWebStack({
  scripts: SCRIPTS,
  env: { STRAND_TELEMETRY_INTERVAL_MS: '500', STRAND_TEMPORAL_UI_URL: TEMPORAL_UI },
  checkPage: async (p) => expect(await p.page.evaluate('window.cspViolations')).toEqual([]),
});
let workspace: string;

beforeAll(() => {
  workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'strand-operator-project-')));
});

afterAll(() => {
  fs.rmSync(workspace, { recursive: true, force: true });
});

/** Recorded in every page before its own scripts run: each CSP violation the page causes (none allowed). */
const RECORD_CSP_VIOLATIONS = `window.cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));`;

/**
 * Opens a page of the gateway (`/operator` by default) in a fresh profile, watched. With `fakeClock` the
 * page's timers run on Playwright's clock: its time flows as usual, and a test can move it on at once.
 */
async function openPage(route = '/operator', { fakeClock = false } = {}): Promise<Page> {
  const context: BrowserContext = await web.browser.context();
  await context.addInitScript({ content: RECORD_CSP_VIOLATIONS });
  if (fakeClock) await context.clock.install();
  return (await web.open(route, context)).page;
}
const openOperator = () => openPage();

async function startTurn(model: string, text: string): Promise<string> {
  const created = await http(web.stack.urls.gateway, 'POST', '/api/sessions', { project_path: workspace, model });
  expect(created.status).toBe(201);
  const sid = created.body.session_id as string;
  expect((await http(web.stack.urls.gateway, 'POST', `/api/sessions/${sid}/prompt`, { text, request_id: `op-${sid}` })).status).toBe(202);
  return sid;
}

async function lastAssistant(sid: string): Promise<any> {
  const messages = (await http(web.stack.urls.gateway, 'GET', `/api/sessions/${sid}/messages`)).body.messages.map((m: any) => m.message).filter(Boolean);
  return messages.filter((m: any) => m.role === 'assistant').at(-1);
}

const jobsTable = (page: Page) => page.getByRole('table', { name: 'Running turns' });
const failuresTable = (page: Page) => page.getByRole('table', { name: 'Recent failures' });
const rowOf = (table: Locator, sid: string) => table.getByRole('row').filter({ has: table.page().getByRole('link', { name: sid, exact: true }) });
const summaryOf = (page: Page, chart: string) => page.getByRole('figure', { name: chart }).locator('figcaption');

test('a running turn shows with its session, model, phase and Temporal link; Cancel stops it and the store holds it aborted', async () => {
  const sid = await startTurn('scripted/slow', 'a long answer for the operator');
  const page = await openOperator();
  expect(await page.title()).toBe('strand — operator');
  await page.getByRole('status', { name: 'Connection' }).filter({ hasText: 'live' }).waitFor();

  const row = rowOf(jobsTable(page), sid);
  await row.waitFor();
  const cells = await row.getByRole('cell').allTextContents();
  expect(cells[0]).toBe(sid);
  expect(cells[1]).toBe('t1');
  expect(cells[2]).toBe('thinking');
  expect(cells[3]).toBe('scripted/slow');
  expect(await row.getByRole('link', { name: sid }).getAttribute('href')).toBe(`/#session=${encodeURIComponent(sid)}`);
  const job = (await http(web.stack.urls.gateway, 'GET', '/api/turns')).body.turns.find((j: any) => j.session_id === sid);
  expect(await row.getByRole('link', { name: 'Temporal' }).getAttribute('href')).toBe(job.workflow_url);
  expect(job.workflow_url.startsWith(`${TEMPORAL_UI}/`)).toBe(true);
  // The elapsed time is counted on the page: it moves between polls.
  const elapsed = () => row.getByRole('cell').nth(4).textContent();
  const first = await elapsed();
  await eventually(elapsed, (t) => t !== first, 'elapsed time moves', 5_000);
  await web.browser.screenshot(page, 'operator-running');

  await row.getByRole('button', { name: 'Cancel' }).click();
  await row.waitFor({ state: 'detached' });
  const answer = await eventually(() => lastAssistant(sid), (m) => m?.stop_reason === 'aborted', 'the turn stored as aborted');
  expect(answer.stop_reason).toBe('aborted');
  expect((await http(web.stack.urls.gateway, 'GET', '/api/turns')).body.turns.filter((j: any) => j.session_id === sid)).toEqual([]);
  await page.getByText('No turn is running.').waitFor();
});

test('a turn failing with a provider error shows under Recent failures with its classified kind', async () => {
  const sid = await startTurn('scripted/op-refused', 'this one fails');
  const page = await openOperator();
  const row = rowOf(failuresTable(page), sid);
  await row.waitFor({ timeout: 30_000 });
  const cells = await row.getByRole('cell').allTextContents();
  expect(cells[1]).toBe(sid);
  expect(cells[2]).toBe('t1');
  expect(cells[3]).toBe('LLM_API_ERROR');
  expect(cells[4]).toBe('permanent');
  expect(cells[5]).toBe('scripted 400');
  expect(cells[6]).toContain('scripted refusal for the operator view');
});

test("the charts have points: the summaries count the finished turns, the provider error and a chat page's stream; each chart is named and drawn", async () => {
  // A turn that finishes: with the aborted and the failed one of the tests before (in order, in one stack), each outcome has a point.
  const echo = await startTurn('scripted/echo', 'a turn that is done');
  await eventually(() => lastAssistant(echo), (m) => m?.stop_reason === 'end', 'the echo turn done');
  const page = await openOperator();
  for (const name of ['Turns per minute', 'First-delta latency', 'Provider errors by class', 'Connections by protocol']) {
    const chart = page.getByRole('figure', { name });
    await chart.waitFor();
    expect(await chart.getByRole('img').getAttribute('aria-label')).toContain(name);
    expect(await chart.locator('canvas').count()).toBe(1);
  }
  const turns = await eventually(
    () => summaryOf(page, 'Turns per minute').textContent(),
    (t) => /aborted 1\b/.test(t ?? '') && /error 1\b/.test(t ?? '') && /done 1\b/.test(t ?? ''),
    'the turns chart counts the aborted, the failed and the done turn',
  );
  expect(turns).toMatch(/^3 turns finished in the last /);
  expect(await summaryOf(page, 'Provider errors by class').textContent()).toMatch(/^\d+ provider errors? in .*permanent \d/);
  expect(await summaryOf(page, 'First-delta latency').textContent()).toMatch(/^Latest first-delta latency: p50 \d+ ms, p90 \d+ ms, p99 \d+ ms\.$/);
  await page.getByText(/^Instances: 1 gateway, 1 worker$/).waitFor();

  // A turn watched from the chat page: its stream is counted among the connections. The two pages link to each other.
  const sid = await startTurn('scripted/slow', 'watched from the chat page');
  const chat = await openPage(`/#session=${sid}`);
  expect(await chat.getByRole('link', { name: 'Operator', exact: true }).getAttribute('href')).toBe('/operator');
  expect(await page.getByRole('link', { name: 'Chat' }).getAttribute('href')).toBe('/');
  await rowOf(jobsTable(page), sid).waitFor();
  await summaryOf(page, 'Connections by protocol').filter({ hasText: /^[1-9]\d* open connections? now \(.*sse [1-9]/ }).waitFor({ timeout: 30_000 });
  // The picture of docs/operator.md: a running turn, history with finished and failed turns, a failure.
  await page.screenshot({ path: path.join(web.browser.screenshotDir, 'operator.png'), fullPage: true });
  await rowOf(jobsTable(page), sid).getByRole('button', { name: 'Cancel' }).click();
  await rowOf(jobsTable(page), sid).waitFor({ state: 'detached' });
});

test('a turn waiting to retry a model step shows as retrying with its attempt, and under Retries in progress', async () => {
  const sid = await startTurn('scripted/op-retry', 'retry me');
  const page = await openOperator();
  const row = rowOf(jobsTable(page), sid);
  await row.getByRole('cell').nth(2).filter({ hasText: /^retrying \(attempt [1-9]\d*\)$/ }).waitFor({ timeout: 30_000 });
  const retries = page.getByRole('region', { name: 'Retries in progress' });
  await retries.getByRole('link', { name: sid, exact: true }).waitFor();
  const listed = await retries.getByRole('listitem').textContent();
  expect(listed!.startsWith(`${sid} t1: `)).toBe(true);
  expect(listed).toMatch(/: retrying \(attempt [1-9]\d*\), scripted\/op-retry$/);
  await row.getByRole('button', { name: 'Cancel' }).click();
  await row.waitFor({ state: 'detached' });
  await retries.getByText('No turn is retrying a model step.').waitFor();
});

test('a hidden tab polls nothing; shown again, it polls at once', async () => {
  // Two polling intervals of the page's time pass in an instant (runFor below) instead of 11 s of waiting.
  const page = await openPage('/operator', { fakeClock: true });
  await page.getByRole('status', { name: 'Connection' }).filter({ hasText: 'live' }).waitFor();
  const watched = web.pages.at(-1)!;
  const polls = async () => watched.requests.filter((u) => u.endsWith('/api/turns')).length;
  // What the browser does when the tab goes to the background or comes back.
  const setHidden = (hidden: boolean) =>
    page.evaluate(`Object.defineProperty(document, 'hidden', { configurable: true, get: () => ${hidden} });
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => '${hidden ? 'hidden' : 'visible'}' });
      document.dispatchEvent(new Event('visibilitychange'));`);
  // Hidden right after a poll: no poll may start for two polling intervals.
  // The page's time moves on faster than the real one, so its next poll comes without a 5 s wait.
  await eventually(async () => (await page.clock.runFor(500), polls()), (n) => n >= 2, 'a second poll');
  await setHidden(true);
  // A poll already under way when the tab hid may still be reported: let it land first.
  await page.waitForTimeout(1_000);
  const before = await polls();
  // Every timer of the page due in the next two intervals fires (a poll it wrongly kept would be sent
  // now); then a second of real time for such a request to be reported.
  await page.clock.runFor(11_000);
  await page.waitForTimeout(1_000);
  expect(await polls()).toBe(before);
  await setHidden(false);
  await eventually(polls, (n) => n > before, 'a poll as soon as the tab shows');
});

test('the page says when the gateway is unreachable and recovers by itself when it is back', async () => {
  const page = await openOperator();
  const status = page.getByRole('status', { name: 'Connection' });
  await status.filter({ hasText: 'live' }).waitFor();
  web.dropGateway();
  await web.stack.process('gateway').kill();
  await status.filter({ hasText: 'gateway unreachable — retrying' }).waitFor({ timeout: 20_000 });
  await web.stack.restart('gateway');
  await status.filter({ hasText: 'live' }).waitFor({ timeout: 60_000 });
  // A turn started after the restart shows without a reload.
  const sid = await startTurn('scripted/slow', 'watched after the restart');
  await rowOf(jobsTable(page), sid).waitFor({ timeout: 20_000 });
  await rowOf(jobsTable(page), sid).getByRole('button', { name: 'Cancel' }).click();
  await rowOf(jobsTable(page), sid).waitFor({ state: 'detached' });
});
