import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { httpErrorHandler } from './error-handler';
import { WEB_PAGE_CSP, webRoutes, WebSite } from './web-route';

/**
 * The web pages' routes over a folder laid out as clients/web/build.ts writes it: the chat page (`/`) and
 * the operator view (`/operator`) each name their entry's files from the manifest, only those are
 * served, a rebuild while the gateway runs is picked up, and a gateway whose page was never built
 * says how to build it.
 */
let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-web-route-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

type Files = { script: string; style: string };

function writeBuild(script: string, style: string, body = 'console.log(1)', operator: Files | null = { script: 'operator-OOOO.js', style: 'operator-PPPP.css' }): void {
  fs.writeFileSync(path.join(dir, script), body);
  fs.writeFileSync(path.join(dir, style), 'body{}');
  if (operator) {
    fs.writeFileSync(path.join(dir, operator.script), 'console.log("operator")');
    fs.writeFileSync(path.join(dir, operator.style), '.chart{}');
  }
  const manifest = path.join(dir, 'manifest.json');
  fs.writeFileSync(manifest, JSON.stringify({ entries: { app: { script, style }, ...(operator ? { operator } : {}) } }));
  // Two writes in the same millisecond would look like one build.
  const when = new Date(Date.now() + Math.floor(Math.random() * 1e6));
  fs.utimesSync(manifest, when, when);
}

function app() {
  const routes = webRoutes(new WebSite(dir));
  routes.onError(httpErrorHandler({ error: () => undefined, warn: () => undefined, debug: () => undefined } as never));
  return routes;
}

test('the page names the built script and stylesheet and carries a CSP that allows its own origin only', async () => {
  writeBuild('app-AAAA.js', 'app-BBBB.css');
  const res = await app().request('/');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-security-policy')).toBe(WEB_PAGE_CSP);
  expect(WEB_PAGE_CSP).not.toMatch(/unsafe|\*|https?:/);
  const html = await res.text();
  expect(html).toContain('<script defer src="/web/app-AAAA.js"></script>');
  expect(html).toContain('<link rel="stylesheet" href="/web/app-BBBB.css">');
  expect(html).toContain('<title>strand</title>');
  expect(html).not.toMatch(/<script>|<style>|style="|operator-/);

  const script = await app().request('/web/app-AAAA.js');
  expect([script.status, script.headers.get('content-type'), await script.text()]).toEqual([200, 'text/javascript; charset=utf-8', 'console.log(1)']);
  expect(script.headers.get('cache-control')).toContain('immutable');
  const again = await app().request('/web/app-AAAA.js', { headers: { 'If-None-Match': script.headers.get('etag')! } });
  expect(again.status).toBe(304);
});

test("the operator view names its own entry's script and stylesheet, under the same CSP", async () => {
  writeBuild('app-AAAA.js', 'app-BBBB.css');
  const res = await app().request('/operator');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-security-policy')).toBe(WEB_PAGE_CSP);
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  const html = await res.text();
  expect(html).toContain('<title>strand — operator</title>');
  expect(html).toContain('<script defer src="/web/operator-OOOO.js"></script>');
  expect(html).toContain('<link rel="stylesheet" href="/web/operator-PPPP.css">');
  expect(html).not.toMatch(/<script>|<style>|style="|app-/);
  // Its own ETag: the two pages are cached apart.
  const chat = await app().request('/');
  expect(res.headers.get('etag')).not.toBe(chat.headers.get('etag'));
  expect((await app().request('/operator', { headers: { 'If-None-Match': res.headers.get('etag')! } })).status).toBe(304);

  for (const [name, type, body] of [
    ['operator-OOOO.js', 'text/javascript; charset=utf-8', 'console.log("operator")'],
    ['operator-PPPP.css', 'text/css; charset=utf-8', '.chart{}'],
  ]) {
    const asset = await app().request(`/web/${name}`);
    expect([asset.status, asset.headers.get('content-type'), await asset.text()]).toEqual([200, type, body]);
  }
});

test('a build without the operator entry serves the chat page, and /operator says how to build it', async () => {
  writeBuild('app-AAAA.js', 'app-BBBB.css', 'console.log(1)', null);
  expect((await app().request('/')).status).toBe(200);
  const res = await app().request('/operator');
  expect(res.status).toBe(503);
  expect(res.headers.get('content-security-policy')).toBe(WEB_PAGE_CSP);
  const html = await res.text();
  expect(html).toContain('The operator view is not built');
  expect(html).toContain('npm run build:web');
});

test('nothing but the built files is served', async () => {
  writeBuild('app-AAAA.js', 'app-BBBB.css');
  fs.writeFileSync(path.join(dir, 'secret.js'), 'no');
  for (const name of ['manifest.json', 'secret.js', '..%2Fweb-route.ts', 'app-CCCC.js', 'operator-CCCC.js']) {
    const res = await app().request(`/web/${name}`);
    expect([name, res.status]).toEqual([name, 404]);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  }
});

test('a rebuild while the gateway runs is served at once; a page never built says how to build it', async () => {
  const routes = app();
  const missing = await routes.request('/');
  expect(missing.status).toBe(503);
  expect(await missing.text()).toContain('npm run build:web');

  writeBuild('app-AAAA.js', 'app-BBBB.css');
  expect(await (await routes.request('/')).text()).toContain('app-AAAA.js');
  writeBuild('app-DDDD.js', 'app-EEEE.css', 'console.log(2)');
  expect(await (await routes.request('/')).text()).toContain('app-DDDD.js');
  expect(await (await routes.request('/web/app-DDDD.js')).text()).toBe('console.log(2)');
});
