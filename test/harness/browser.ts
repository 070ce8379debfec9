import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { buildWeb } from '../../clients/web/build';

/**
 * Real Chromium for the web page's tests: Debian's `chromium` driven by playwright-core (which
 * downloads no browser of its own). No Chromium is a failure that says how to install it, never a
 * skip: CI installs it (infra/ensure-test-deps.sh). Every page records the requests it made and the
 * errors it logged, so a test can show that nothing left the origin and that the page's CSP blocked
 * nothing; screenshots go to one folder per run, printed at the end.
 */
const CHROMIUM = process.env.STRAND_CHROMIUM || '/usr/bin/chromium';

/** Flags that work without a network, a GPU, a sandbox (root in CI) or a desktop session. */
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];

export interface WatchedPage {
  page: Page;
  /** Every URL the page requested. */
  requests: string[];
  /** Console errors and uncaught exceptions. */
  errors: string[];
  /** Responses of status 400 and above, as `<status> <method> <url>` (the console's own message names no URL). */
  failed: string[];
}

export interface TestBrowser {
  /** A new tab in a fresh profile (its own sessionStorage), or in `context` for a second tab of the same one. */
  open(url: string, context?: BrowserContext): Promise<WatchedPage>;
  /** A new profile: cookies, storage and cache of its own. */
  context(): Promise<BrowserContext>;
  screenshot(page: Page, name: string): Promise<string>;
  /**
   * The page as the test left it, as `last-<test name>-<n>.png`: called from afterEach for every page,
   * so a test that failed on a wait leaves what the page showed (a passing one's are simply there too).
   */
  keepLast(page: Page): Promise<void>;
  readonly screenshotDir: string;
  close(): Promise<void>;
}

function chromiumMissing(): string | undefined {
  if (fs.existsSync(CHROMIUM)) return undefined;
  return `Chromium is not installed (${CHROMIUM} is missing): the web page's tests drive a real browser. Install it with \`apt-get install -y chromium\` (or run \`bash infra/ensure-test-deps.sh\`, which npm test runs), or point STRAND_CHROMIUM at a Chromium binary.`;
}

/** Builds the page's bundle if its sources changed (as `npm start` does), then starts Chromium. */
export async function startBrowser(): Promise<TestBrowser> {
  const missing = chromiumMissing();
  if (missing) throw new Error(missing);
  await buildWeb();
  const screenshotDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-web-screenshots-'));
  // playwright-core gives each launch a fresh profile (--user-data-dir in a temporary folder) and removes it on close.
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  const contexts: BrowserContext[] = [];
  const context = async () => {
    const c = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
    contexts.push(c);
    return c;
  };
  return {
    screenshotDir,
    context,
    async open(url, inContext) {
      const page = await (inContext ?? (await context())).newPage();
      const watched: WatchedPage = { page, requests: [], errors: [], failed: [] };
      page.on('request', (r) => watched.requests.push(r.url()));
      page.on('response', (r) => r.status() >= 400 && watched.failed.push(`${r.status()} ${r.request().method()} ${r.url()}`));
      page.on('console', (m) => m.type() === 'error' && watched.errors.push(m.text()));
      page.on('pageerror', (e) => watched.errors.push(`uncaught: ${e.message}`));
      await page.goto(url);
      return watched;
    },
    async screenshot(page, name) {
      const file = path.join(screenshotDir, `${name}.png`);
      await page.screenshot({ path: file });
      return file;
    },
    async keepLast(page) {
      const test = (expect.getState().currentTestName ?? 'test').replace(/[^A-Za-z0-9]+/g, '-').slice(0, 80);
      for (let n = 1; ; n++) {
        const file = path.join(screenshotDir, `last-${test}-${n}.png`);
        if (fs.existsSync(file)) continue;
        await page.screenshot({ path: file }).catch(() => undefined);
        return;
      }
    },
    async close() {
      for (const c of contexts) await c.close().catch(() => undefined);
      await browser.close();
      process.stdout.write(`[browser] screenshots in ${screenshotDir}\n`);
    },
  };
}

/**
 * What a page logged that is not the page's fault: a resource that failed to load while the gateway
 * was down on purpose (a restart test) is logged by Chromium as a console error.
 */
export function pageErrors(watched: WatchedPage, expectedDrops = false): string[] {
  return watched.errors.filter((e) => !(expectedDrops && /Failed to load resource|ERR_CONNECTION_REFUSED|ERR_EMPTY_RESPONSE|network error|Failed to fetch/i.test(e)));
}

/** Waits until `read` returns something `ok` accepts; the last value is in the error otherwise. */
export async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: T | undefined;
  for (;;) {
    last = await read();
    if (ok(last)) return last;
    if (Date.now() > deadline) throw new Error(`${what}: not met in ${ms} ms (last value: ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
