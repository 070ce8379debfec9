import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { pageErrors, startBrowser, type TestBrowser, type WatchedPage } from './browser';
import { startTestStack, type TestStack } from './stack-fixture';

/**
 * The setup every browser test file shares: one real stack with the file's scripted models, one
 * Chromium, and after each test the same checks on every page the test opened — it asked its own
 * origin only, and logged no error (failed requests are allowed once a test dropped the gateway on
 * purpose) — with the last screen of each page kept for when a test failed on a wait.
 */
export interface WebStack {
  readonly stack: TestStack;
  readonly browser: TestBrowser;
  /** The pages the running test opened, oldest first. */
  readonly pages: readonly WatchedPage[];
  /** Opens `route` of the gateway (`/`, `/#session=…`, `/operator`) in a fresh profile, or in `context` for a second tab of one. */
  open(route: string, context?: BrowserContext): Promise<WatchedPage>;
  /** Says that the running test stops the gateway on purpose: the pages' failed requests are expected. */
  dropGateway(): void;
  /**
   * Says which failed responses the running test expects (e.g. the requests a page still makes about a
   * session the test deleted): the browser's "Failed to load resource" lines are then allowed when
   * every failed response is one of them.
   */
  allowFailed(expected: (failed: string) => boolean): void;
  /** Writes (or replaces) a scripted model's steps. */
  writeScript(name: string, steps: unknown[]): void;
}

export interface WebStackOptions {
  /** Scripted models by name (activities/providers/scripted.ts). */
  scripts: Record<string, unknown[]>;
  /** More environment for the stack's services. */
  env?: Record<string, string>;
  /** A check of the file's own on each page after each test (before it is closed). */
  checkPage?: (page: WatchedPage) => Promise<void>;
}

/** Registers the file's beforeAll/afterAll/beforeEach/afterEach; the returned object is usable inside tests. */
export function useWebStack(options: WebStackOptions): WebStack {
  let stack: TestStack | undefined;
  let browser: TestBrowser | undefined;
  let scripts: string | undefined;
  let dropped = false;
  let allowedFailures: ((failed: string) => boolean) | undefined;
  const pages: WatchedPage[] = [];
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the web stack is used before its beforeAll ran');
    return value;
  };
  const writeScript = (name: string, steps: unknown[]) => fs.writeFileSync(path.join(ready(scripts), `${name}.json`), JSON.stringify({ steps }));

  beforeAll(async () => {
    scripts = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-web-scripts-'));
    for (const [name, steps] of Object.entries(options.scripts)) writeScript(name, steps);
    [stack, browser] = await Promise.all([startTestStack({ STRAND_SCRIPTS_DIR: scripts, ...options.env }), startBrowser()]);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.teardown();
    if (scripts) fs.rmSync(scripts, { recursive: true, force: true });
  }, 60_000);

  beforeEach(() => {
    dropped = false;
    allowedFailures = undefined;
  });

  afterEach(async () => {
    const origin = ready(stack).urls.gateway;
    for (const p of pages.splice(0)) {
      await ready(browser).keepLast(p.page);
      expect(p.requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:') && !u.startsWith('blob:'))).toEqual([]);
      const allowed = allowedFailures;
      const expectedFailures = allowed !== undefined && p.failed.every((f) => allowed(f));
      const errors = pageErrors(p, dropped).filter((e) => !(expectedFailures && /^Failed to load resource/.test(e)));
      // A failure names the responses that failed (the console's line does not) and, for a 5xx, what
      // the services logged at warn level or above around it (the gateway logs why it answered 503).
      const serverSide = p.failed.some((f) => /^5\d\d /.test(f)) ? ready(stack).output.filter((l) => /"level":(40|50|60)\b|\b(WARN|ERROR)\b/.test(l)).slice(-15) : [];
      expect(errors.length > 0 ? [...errors, ...p.failed.map((f) => `(response ${f})`), ...serverSide.map((l) => `(log ${l})`)] : []).toEqual([]);
      await options.checkPage?.(p);
      await p.page.close();
    }
  });

  return {
    get stack() {
      return ready(stack);
    },
    get browser() {
      return ready(browser);
    },
    pages,
    async open(route, context) {
      const watched = await ready(browser).open(`${ready(stack).urls.gateway}${route.startsWith('/') ? route : `/${route}`}`, context);
      pages.push(watched);
      return watched;
    },
    dropGateway() {
      dropped = true;
    },
    allowFailed(expected) {
      allowedFailures = expected;
    },
    writeScript,
  };
}
