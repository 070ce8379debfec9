import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { gitOk } from '../../activities/job-workspace/git';
import { eventually } from '../harness/browser';
import { http } from '../harness/stack-fixture';
import { useWebStack } from '../harness/web-stack';

/**
 * Unattended jobs on the chat page and in the operator view (docs/jobs.md, "On the page";
 * docs/operator.md), in real Chromium against a real stack whose scripted model works in a real git
 * repository. A job started over HTTP is listed on both pages; its session shows the job's banner
 * and its conversation live, takes no prompt, and once the job ended shows its report's summary (and
 * the whole report); an escalated call is shown with its arguments and allowed from the page, and the
 * job goes on; Cancel in the operator view ends a job `cancelled`.
 */
jest.setTimeout(150_000);

const SCRIPTS: Record<string, unknown[]> = {
  'job-ok': [
    [{ type: 'text', text: 'Writing the file.' }, { type: 'tool_call', name: 'write_file', args: { path: 'hello.txt', content: 'hello\nworld\n' } }],
    [{ type: 'text', text: 'Added hello.txt with two lines.' }],
  ],
  'job-escalate': [[{ type: 'text', text: 'Let me run it.' }, { type: 'tool_call', name: 'shell_exec', args: { command: 'echo yes > approved.txt' } }], [{ type: 'text', text: 'Approved and done.' }]],
  'job-slow': [[{ type: 'text', text: 'Thinking hard.' }, { type: 'stall' }]],
};

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'strand-web-jobs-')));
const repo = path.join(tmp, 'repo');
const web = useWebStack({ scripts: SCRIPTS, env: { STRAND_JOBS_DIR: path.join(tmp, 'jobs') } });

beforeAll(async () => {
  fs.mkdirSync(repo);
  await gitOk(repo, ['init', '--quiet', '--initial-branch', 'main']);
  fs.writeFileSync(path.join(repo, 'README.md'), '# demo\n');
  await gitOk(repo, ['add', '-A']);
  await gitOk(repo, ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '--quiet', '-m', 'first']);
});

afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Starts a job over HTTP as any client would. */
async function startJob(model: string, id: string, extra: Record<string, unknown> = {}): Promise<string> {
  const started = await http(web.stack.urls.gateway, 'POST', '/api/jobs', { version: 1, task: { prompt: `run ${model}`, project_path: repo, model: `scripted/${model}` }, job_id: id, ...extra });
  expect(started.status).toBe(202);
  return started.body.job_id as string;
}

const jobView = async (id: string) => (await http(web.stack.urls.gateway, 'GET', `/api/jobs/${id}`)).body;
const ended = (id: string) => eventually(() => jobView(id), (v) => v.status !== 'running', `job ${id} ended`, 90_000);

const banner = (page: Page) => page.getByRole('region', { name: 'Job', exact: true });
const jobStatus = (page: Page) => page.getByRole('status', { name: 'Job status' });
const answers = (page: Page) => page.getByRole('article', { name: 'Answer' });
const sidebarJobs = (page: Page) => page.getByRole('navigation', { name: 'Sessions' }).getByRole('region', { name: 'Jobs' });
const operatorJobRow = (page: Page, id: string): Locator => page.getByRole('table', { name: 'Jobs', exact: true }).getByRole('row').filter({ hasText: id });

test('a job started over HTTP is listed on both pages; its session shows the answer, takes no prompt, and its report once it ended', async () => {
  const id = await startJob('job-ok', `ok-${Date.now()}`);

  // The operator view lists it with its status, project and model, and links its report and session.
  const operator = (await web.open('/operator')).page;
  const row = operatorJobRow(operator, id);
  await row.waitFor();
  const cells = await row.getByRole('cell').allTextContents();
  expect(cells[0]).toBe(id);
  expect(cells[2]).toBe(repo);
  expect(cells[3]).toBe('scripted/job-ok');
  expect(await row.getByRole('link', { name: `job-${id}`, exact: true }).getAttribute('href')).toBe(`/#session=job-${id}`);
  expect(await row.getByRole('link', { name: `Report of job ${id}` }).getAttribute('href')).toBe(`/#session=job-${id}&report=1`);
  await ended(id);
  await row.getByRole('cell').nth(1).filter({ hasText: /^succeeded$/ }).waitFor({ timeout: 20_000 });
  expect(await row.getByRole('button', { name: `Cancel job ${id}` }).count()).toBe(0);

  // The chat page lists it among the jobs, not among the project's sessions; opening it shows the job.
  const page = (await web.open('/')).page;
  const listed = sidebarJobs(page).getByRole('link').filter({ hasText: 'run job-ok' }).filter({ hasText: id });
  await listed.waitFor();
  expect(await listed.textContent()).toContain('succeeded');
  // Its session is listed once, as the job (not again under the job's workspace as a project).
  expect(await page.locator(`a[href="#session=job-${id}"]`).count()).toBe(1);
  await listed.click();
  await jobStatus(page).filter({ hasText: /^succeeded$/ }).waitFor();
  await answers(page).filter({ hasText: 'Added hello.txt with two lines.' }).waitFor();
  await page.getByRole('article', { name: 'Prompt' }).filter({ hasText: 'run job-ok' }).waitFor();

  // The report's summary: the status, the files changed, the commit, what it spent.
  const summary = banner(page).getByRole('group', { name: 'Report summary' });
  expect(await summary.getByRole('list', { name: 'Files changed' }).textContent()).toBe('hello.txt +2 −0');
  const report = (await jobView(id)).report;
  expect(await summary.getByRole('list', { name: 'Commits' }).textContent()).toBe(`${report.deliverable.commits[0].sha.slice(0, 12)} ${report.deliverable.commits[0].subject}`);
  expect(await summary.getByLabel('Spent').textContent()).toMatch(new RegExp(`^\\$0\\.0000 · ${report.usage.tokens} tokens · 2 model steps · \\d+ s$`));

  // No prompt from the page: the box is disabled and says why; nothing of a session's own controls.
  const box = page.getByRole('textbox', { name: 'Message' });
  expect(await box.isDisabled()).toBe(true);
  expect(await page.locator('#composer-locked').textContent()).toContain("This is a job's session: the job runs its own turns");
  expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
  for (const name of ['Compact', 'Settings']) expect(await page.getByRole('button', { name, exact: true }).count()).toBe(0);
  await web.browser.screenshot(page, 'job-ended');

  // The operator's Report link opens the page with the whole report rendered.
  await operator.getByRole('link', { name: `Report of job ${id}` }).click();
  await operator.getByRole('heading', { name: `Job ${id}: succeeded` }).waitFor();
  expect(await operator.getByRole('group', { name: 'Report summary' }).locator('details').getAttribute('open')).not.toBeNull();
});

test('an escalated call shows with its arguments while the job runs; Allow lets the job go on, and its end shows without a reload', async () => {
  const id = await startJob('job-escalate', `esc-${Date.now()}`, { policy: { tools: { shell_exec: 'escalate' } } });
  const page = (await web.open(`/#session=job-${id}`)).page;
  await jobStatus(page).filter({ hasText: /^running$/ }).waitFor();

  // Live: the first step's answer and the call waiting for a person, its command shown.
  await answers(page).filter({ hasText: 'Let me run it.' }).waitFor();
  const waiting = banner(page).getByRole('group', { name: 'Waiting for a person: shell_exec' });
  await waiting.waitFor();
  expect(await waiting.getByLabel('Arguments').textContent()).toBe(JSON.stringify({ command: 'echo yes > approved.txt' }, null, 2));
  expect(await page.getByRole('article', { name: 'Tool shell_exec' }).getByLabel('Tool status').textContent()).toBe('waiting for a person (see the job above)');
  expect((await jobView(id)).status).toBe('running');
  await web.browser.screenshot(page, 'job-escalation');

  // The operator view names the call waiting, and what the running job has spent so far.
  const operator = (await web.open('/operator')).page;
  const row = operatorJobRow(operator, id);
  const callId = (await jobView(id)).progress.escalations[0].tool_call_id;
  await row.getByRole('cell').nth(8).filter({ hasText: `shell_exec (${callId})` }).waitFor();
  expect(await row.getByRole('cell').nth(6).textContent()).toBe('$0.0000');
  expect(await row.getByRole('cell').nth(7).textContent()).toMatch(/^[1-9]\d*$/);

  await waiting.getByRole('textbox', { name: 'Reason' }).fill('harmless');
  await waiting.getByRole('button', { name: 'Allow' }).click();
  await waiting.waitFor({ state: 'detached' });
  await answers(page).filter({ hasText: 'Approved and done.' }).waitFor({ timeout: 60_000 });
  await jobStatus(page).filter({ hasText: /^succeeded$/ }).waitFor({ timeout: 60_000 });
  await banner(page).getByRole('group', { name: 'Report summary' }).getByRole('list', { name: 'Files changed' }).filter({ hasText: 'approved.txt +1 −0' }).waitFor();
  // The job's end read its conversation anew: no turn shows as still working.
  await page.getByLabel('Agent state').waitFor({ state: 'detached' });
  expect(await page.getByRole('article', { name: 'Tool shell_exec' }).getByLabel('Tool status').textContent()).toBe('done');

  const report = (await jobView(id)).report;
  expect(report.tool_calls.map((c: any) => [c.tool, c.outcome, c.decided_by, c.answered_by, c.reason])).toEqual([['shell_exec', 'ran', 'person', 'local', 'harmless']]);

  // After it ended, a fresh page shows the same conversation from the store.
  const again = (await web.open(`/#session=job-${id}`)).page;
  await answers(again).filter({ hasText: 'Approved and done.' }).waitFor();
  await answers(again).filter({ hasText: 'Let me run it.' }).waitFor();
  expect(await again.getByRole('article', { name: 'Tool shell_exec' }).getByLabel('Tool status').textContent()).toBe('done');
});

test('Cancel in the operator view ends a running job cancelled; the page shows it cancelled with its report', async () => {
  const id = await startJob('job-slow', `slow-${Date.now()}`);
  const page = (await web.open(`/#session=job-${id}`)).page;
  await answers(page).filter({ hasText: 'Thinking hard.' }).waitFor();
  await page.getByRole('button', { name: 'Cancel job' }).waitFor();

  const operator = (await web.open('/operator')).page;
  const row = operatorJobRow(operator, id);
  await row.getByRole('cell').nth(1).filter({ hasText: /^running$/ }).waitFor();
  await row.getByRole('button', { name: `Cancel job ${id}` }).click();
  await row.getByRole('cell').nth(1).filter({ hasText: /^cancelled$/ }).waitFor({ timeout: 60_000 });
  expect((await ended(id)).report).toMatchObject({ status: 'cancelled', turns: [{ kind: 'work', outcome: 'aborted' }] });

  // The page open on it follows: cancelled, with the report's summary and no Cancel any more.
  await jobStatus(page).filter({ hasText: /^cancelled$/ }).waitFor({ timeout: 30_000 });
  await banner(page).getByRole('group', { name: 'Report summary' }).waitFor();
  expect(await page.getByRole('button', { name: 'Cancel job' }).count()).toBe(0);
});
