import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { z } from 'zod';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import { errors, openApiApp, PUBLIC } from './openapi/route-kit';

/**
 * strand's chat page at `/` (docs/web.md): one HTML page, one script and one stylesheet that
 * web/build.ts bundles into dist/web at install time (`npm start`, `npm test`). Public and static
 * like the API docs (the page asks for a token itself when the API answers 401), and served with a
 * Content-Security-Policy that lets the page reach its own origin only: no inline script, no CDN,
 * no request anywhere else.
 */

export const WEB_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Where web/build.ts writes the bundle. */
export const DEFAULT_WEB_DIR = path.resolve(__dirname, '..', '..', '..', 'dist', 'web');

interface Manifest {
  script: string;
  style: string;
}

interface Built {
  manifest: Manifest;
  /** The manifest's modification time: a rebuild while the gateway runs is picked up. */
  mtimeMs: number;
  html: string;
  etag: string;
}

const etagOf = (body: Uint8Array | string) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;

function page(manifest: Manifest): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>strand</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/web/${manifest.style}">
<script defer src="/web/${manifest.script}"></script>
</head>
<body>
<div id="app"></div>
<noscript>strand's chat page needs JavaScript.</noscript>
</body>
</html>
`;
}

const NOT_BUILT = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>strand</title></head>
<body><h1>The chat page is not built</h1>
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
    const html = page(manifest);
    this.built = { manifest, mtimeMs, html, etag: etagOf(html) };
    return this.built;
  }

  /** An asset the page names, or undefined (nothing else of the folder is readable). */
  asset(name: string): Promise<{ body: Buffer; etag: string; contentType: string }> | undefined {
    const built = this.current();
    if (!built || (name !== built.manifest.script && name !== built.manifest.style)) return undefined;
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

const header = (description: string) => ({ description, schema: { type: 'string' as const } });
const CACHE_HEADERS = { ETag: header('Content hash; send it back in If-None-Match to get 304.'), 'Cache-Control': header('How long the body may be cached.') };
const NOT_MODIFIED = { description: 'Not modified (If-None-Match matched).' };
const text = { schema: { type: 'string' as const } };
const common = { tags: ['web'], ...PUBLIC };

const pageRoute = createRoute({
  method: 'get',
  path: '/',
  operationId: 'webPage',
  summary: "strand's chat page",
  description: 'The web client (docs/web.md). Its Content-Security-Policy lets it reach this origin only.',
  ...common,
  responses: {
    200: { description: 'The page.', headers: { ...CACHE_HEADERS, 'Content-Security-Policy': header('The page may load from and talk to this origin only.') }, content: { 'text/html': text } },
    304: NOT_MODIFIED,
    503: { description: 'The page was not built (`npm run build:web`).', content: { 'text/html': text } },
  },
});

const assetRoute = createRoute({
  method: 'get',
  path: '/web/{asset}',
  operationId: 'webAsset',
  summary: "The chat page's script and stylesheet",
  ...common,
  request: { params: z.object({ asset: z.string().describe('A file the page loads (its name carries its content hash).') }) },
  responses: {
    200: { description: 'The file; its name changes with its content, so it is cached for good.', headers: CACHE_HEADERS, content: { 'text/javascript': text, 'text/css': text } },
    304: NOT_MODIFIED,
  },
  ...errors(ErrorCode.NOT_FOUND),
});

function fresh(c: Context, etag: string): boolean {
  const held = c.req.header('If-None-Match');
  return held !== undefined && held.split(',').some((t) => t.trim() === etag || t.trim() === '*');
}

/** `GET /` and `GET /web/{asset}`: mounted before authentication (a browser loading a script sends no token). */
export function webRoutes(site: WebSite = new WebSite()): OpenAPIHono {
  const app = openApiApp();

  app.openapi(pageRoute, (c) => {
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Content-Security-Policy', WEB_PAGE_CSP);
    c.header('Referrer-Policy', 'no-referrer');
    const built = site.current();
    if (!built) return c.html(NOT_BUILT, 503);
    // Revalidated on every load: a rebuilt page names new assets.
    c.header('Cache-Control', 'no-cache');
    c.header('ETag', built.etag);
    if (fresh(c, built.etag)) return c.body(null, 304);
    return c.html(built.html, 200);
  });

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
