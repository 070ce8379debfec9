import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { z } from 'zod';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import { errors, openApiApp, PUBLIC } from './openapi/route-kit';
import { CACHE_HEADERS, fresh, header, NOT_MODIFIED, ownOriginCsp, TEXT_BODY } from './static-pages';

/**
 * strand's web pages: the chat page at `/` (docs/web.md) and the operator view at `/operator`
 * (docs/operator.md). Each is one HTML page, one script and one stylesheet that clients/web/build.ts bundles
 * into dist/web at install time (`npm start`, `npm test`). Public and static like the API docs (the
 * pages ask for a token themselves when the API answers 401), and served with a
 * Content-Security-Policy that lets a page reach its own origin only: no inline script, no CDN, no
 * request anywhere else.
 */

export const WEB_PAGE_CSP = ownOriginCsp();

/** Where clients/web/build.ts writes the bundle. */
const DEFAULT_WEB_DIR = path.resolve(__dirname, '..', '..', '..', 'dist', 'web');

/** The pages, by the name of their build entry (clients/web/build.ts WEB_ENTRIES). */
const WEB_PAGES = {
  app: { title: 'strand', what: 'chat page' },
  operator: { title: 'strand — operator', what: 'operator view' },
} as const;
export type WebPageName = keyof typeof WEB_PAGES;

/** What the gateway reads of clients/web/build.ts's manifest.json. */
interface Manifest {
  entries: Partial<Record<WebPageName, { script: string; style: string }>>;
}

interface Built {
  manifest: Manifest;
  /** The manifest's modification time: a rebuild while the gateway runs is picked up. */
  mtimeMs: number;
  /** Each page the build made, as served; a page the build did not make is absent. */
  pages: Partial<Record<WebPageName, { html: string; etag: string }>>;
  /** Every file the pages name: nothing else of the folder is served. */
  assets: Set<string>;
}

const etagOf = (body: Uint8Array | string) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;

function page(name: WebPageName, files: { script: string; style: string }): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${WEB_PAGES[name].title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/web/${files.style}">
<script defer src="/web/${files.script}"></script>
</head>
<body>
<div id="app"></div>
<noscript>strand's ${WEB_PAGES[name].what} needs JavaScript.</noscript>
</body>
</html>
`;
}

const notBuilt = (name: WebPageName) => `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${WEB_PAGES[name].title}</title></head>
<body><h1>The ${WEB_PAGES[name].what} is not built</h1>
<p>Build it with <code>npm run build:web</code> (<code>npm start</code> and <code>npm test</code> do it for you), then reload.</p>
</body></html>
`;

/**
 * The built page as the gateway serves it. The manifest is looked at whenever the page is asked for
 * (a gateway started before a build, or running across a rebuild, serves the new one); assets are
 * read once and kept: their names change with their content.
 */
export class WebSite {
  private built: Built | undefined;
  private readonly assets = new Map<string, Promise<{ body: Buffer; etag: string }>>();

  constructor(readonly dir: string = DEFAULT_WEB_DIR) {}

  current(): Built | undefined {
    const file = path.join(this.dir, 'manifest.json');
    let manifest: Manifest;
    let mtimeMs: number;
    try {
      mtimeMs = fs.statSync(file).mtimeMs;
      if (this.built?.mtimeMs === mtimeMs) return this.built;
      manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest;
    } catch {
      return this.built;
    }
    const pages: Built['pages'] = {};
    const assets = new Set<string>();
    for (const name of Object.keys(WEB_PAGES) as WebPageName[]) {
      const files = manifest.entries?.[name];
      if (!files) continue;
      const html = page(name, files);
      pages[name] = { html, etag: etagOf(html) };
      assets.add(files.script).add(files.style);
    }
    this.built = { manifest, mtimeMs, pages, assets };
    return this.built;
  }

  /** One page as served, or undefined while the build has not made it. */
  page(name: WebPageName): { html: string; etag: string } | undefined {
    return this.current()?.pages[name];
  }

  /** An asset the page names, or undefined (nothing else of the folder is readable). */
  asset(name: string): Promise<{ body: Buffer; etag: string; contentType: string }> | undefined {
    const built = this.current();
    if (!built?.assets.has(name)) return undefined;
    const contentType = name.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8';
    let got = this.assets.get(name);
    if (!got) {
      got = fs.promises.readFile(path.join(this.dir, name)).then((body) => ({ body, etag: etagOf(body) }));
      got.catch(() => this.assets.delete(name));
      this.assets.set(name, got);
    }
    return got.then((a) => ({ ...a, contentType }));
  }
}

const common = { tags: ['web'], ...PUBLIC };

const pageRoute = createRoute({
  method: 'get',
  path: '/',
  operationId: 'webPage',
  summary: "strand's chat page",
  description: 'The web client (docs/web.md). Its Content-Security-Policy lets it reach this origin only.',
  ...common,
  responses: {
    200: { description: 'The page.', headers: { ...CACHE_HEADERS, 'Content-Security-Policy': header('The page may load from and talk to this origin only.') }, content: { 'text/html': TEXT_BODY } },
    304: NOT_MODIFIED,
    503: { description: 'The page was not built (`npm run build:web`).', content: { 'text/html': TEXT_BODY } },
  },
});

const operatorRoute = createRoute({
  method: 'get',
  path: '/operator',
  operationId: 'webOperatorPage',
  summary: "strand's operator view",
  description: 'Running turns, recent failures and live charts (docs/operator.md). Same Content-Security-Policy as the chat page.',
  ...common,
  responses: pageRoute.responses,
});

const assetRoute = createRoute({
  method: 'get',
  path: '/web/{asset}',
  operationId: 'webAsset',
  summary: "The web pages' scripts and stylesheets",
  ...common,
  request: { params: z.object({ asset: z.string().describe('A file the page loads (its name carries its content hash).') }) },
  responses: {
    200: { description: 'The file; its name changes with its content, so it is cached for good.', headers: CACHE_HEADERS, content: { 'text/javascript': TEXT_BODY, 'text/css': TEXT_BODY } },
    304: NOT_MODIFIED,
  },
  ...errors(ErrorCode.NOT_FOUND),
});

/** A page's answer: the HTML naming the build's files, under the CSP. */
function servePage(c: Context, site: WebSite, name: WebPageName) {
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Content-Security-Policy', WEB_PAGE_CSP);
  c.header('Referrer-Policy', 'no-referrer');
  const built = site.page(name);
  if (!built) return c.html(notBuilt(name), 503);
  // Revalidated on every load: a rebuilt page names new assets.
  c.header('Cache-Control', 'no-cache');
  c.header('ETag', built.etag);
  if (fresh(c, built.etag)) return c.body(null, 304);
  return c.html(built.html, 200);
}

/**
 * `GET /`, `GET /operator` and `GET /web/{asset}`: mounted before authentication (a browser loading a
 * script sends no token; the data the pages show is read by their scripts, with the token).
 */
export function webRoutes(site: WebSite = new WebSite()): OpenAPIHono {
  const app = openApiApp();

  app.openapi(pageRoute, (c) => servePage(c, site, 'app'));
  app.openapi(operatorRoute, (c) => servePage(c, site, 'operator'));

  app.openapi(assetRoute, async (c) => {
    const name = c.req.valid('param').asset;
    const got = site.asset(name);
    if (!got) throw new StrandError(ErrorCode.NOT_FOUND, `no web asset ${name}`);
    const asset = await got;
    c.header('Cache-Control', 'public, max-age=31536000, immutable');
    c.header('ETag', asset.etag);
    c.header('X-Content-Type-Options', 'nosniff');
    if (fresh(c, asset.etag)) return c.body(null, 304);
    return c.body(asset.body as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': asset.contentType });
  });

  return app;
}
