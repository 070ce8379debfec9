import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { eventually, pageErrors, startBrowser, type TestBrowser, type WatchedPage } from '../harness/browser';
import { startFakeAnthropicServer, type FakeAnthropicReply, type FakeProviderServer } from '../harness/fake-anthropic-server';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * The chat page's composer attaches images (docs/images.md): in real Chromium against a real stack
 * whose worker talks to a local Anthropic Messages API, a PNG picked with "Attach image" is listed,
 * can be removed, and goes with the next Send; the provider receives it as a base64 image block with
 * the file's bytes and the page shows the answer. A model the catalog says takes no images (a custom
 * catalog entry) refuses the prompt, and the page shows the gateway's reason and keeps the attachment.
 */
jest.setTimeout(120_000);

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

let stack: TestStack;
let browser: TestBrowser;
let anthropic: FakeProviderServer<FakeAnthropicReply>;
let workspace: string;
let catalogFile: string;
const pages: WatchedPage[] = [];

beforeAll(async () => {
  workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'strand-web-images-')));
  // A text-only model of the same provider, so the refusal needs no second provider.
  catalogFile = path.join(workspace, 'models.json');
  fs.writeFileSync(catalogFile, JSON.stringify({ version: 1, models: [{ provider: 'anthropic', id: 'text-only-test', name: 'Text only', context_window: 100000, max_output_tokens: 4096, supports: { images: false } }] }));
  anthropic = await startFakeAnthropicServer();
  [stack, browser] = await Promise.all([
    startTestStack({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: anthropic.baseURL, STRAND_DEFAULT_MODEL: 'anthropic/claude-sonnet-4-6', STRAND_MODELS_FILE: catalogFile }),
    startBrowser(),
  ]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.teardown();
  await anthropic?.close();
  if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
}, 60_000);

afterEach(async () => {
  const origin = stack.urls.gateway;
  for (const p of pages.splice(0)) {
    await browser.keepLast(p.page);
    expect(p.requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:') && !u.startsWith('blob:'))).toEqual([]);
    // The refused prompt's 400 is logged by Chromium as a failed resource; nothing else may be.
    expect(pageErrors(p).filter((e) => !/status of 400/.test(e))).toEqual([]);
    await p.page.close();
  }
});

async function openSession(model: string): Promise<Page> {
  const created = await http(stack.urls.gateway, 'POST', '/api/sessions', { project_path: workspace, model });
  expect(created.status).toBe(201);
  const watched = await browser.open(`${stack.urls.gateway}/#session=${created.body.session_id}`);
  pages.push(watched);
  return watched.page;
}

const attach = (page: Page, name: string) => page.getByLabel('Attach image').setInputFiles({ name, mimeType: 'image/png', buffer: PNG });
const attached = (page: Page) => page.getByRole('list', { name: 'Attached images' }).getByRole('listitem');

test('Attach image: listed, removable, sent with the prompt; the provider gets the bytes as a base64 image block', async () => {
  const page = await openSession('anthropic/claude-sonnet-4-6');
  await attach(page, 'first.png');
  await attach(page, 'pixel.png');
  await eventually(() => attached(page).allInnerTexts(), (t) => t.length === 2, 'two attachments listed');
  await page.getByRole('button', { name: 'Remove first.png' }).click();
  expect((await attached(page).allInnerTexts()).map((t) => t.replace(/\s*×$/, ''))).toEqual(['pixel.png (70 B)']);

  anthropic.reply({ blocks: [{ type: 'text', text: 'One white pixel.' }] });
  const before = anthropic.requests.length;
  await page.getByRole('textbox', { name: 'Message' }).fill('What is this?');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await eventually(() => page.getByRole('article', { name: 'Answer' }).allInnerTexts(), (t) => t.some((x) => x.includes('One white pixel.')), 'the answer');
  expect(anthropic.requests.length).toBe(before + 1);
  const content = (anthropic.requests.at(-1)!.body.messages as Array<{ content: unknown[] }>)[0]!.content;
  expect(content).toEqual([
    expect.objectContaining({ type: 'text', text: 'What is this?' }),
    expect.objectContaining({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG.toString('base64') } }),
  ]);
  // Sent: the list is empty again.
  expect(await page.getByRole('list', { name: 'Attached images' }).count()).toBe(0);
});

test('a model without image support: the page shows the refusal and keeps the attachment and the text', async () => {
  const page = await openSession('anthropic/text-only-test');
  const before = anthropic.requests.length;
  await attach(page, 'pixel.png');
  await page.getByRole('textbox', { name: 'Message' }).fill('And this?');
  await page.getByRole('button', { name: 'Send' }).click();
  const alert = page.getByRole('alert');
  await eventually(() => alert.allInnerTexts(), (t) => t.some((x) => x.includes('anthropic/text-only-test does not take images')), 'the refusal');
  expect(await attached(page).count()).toBe(1);
  expect(await page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe('And this?');
  expect(anthropic.requests.length).toBe(before);
});
