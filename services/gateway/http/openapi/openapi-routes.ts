import { createHash } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { ErrorCode, StrandError } from '../../../../contracts/errors';
import { errorResponse } from '../errors';
import { buildOpenApiDocument } from './build-document';
import { DOCS_PAGE_CSP, DocsSite } from './docs-page';

/** Whether the client already holds this version (`If-None-Match`, possibly a list). */
function fresh(c: Context, etag: string): boolean {
  const held = c.req.header('If-None-Match');
  return held !== undefined && held.split(',').some((t) => t.trim() === etag || t.trim() === '*');
}

/**
 * The `servers` entry of the document as one client sees it: the configured public URL, else the
 * origin of the request itself (scheme, Host header, port), so Swagger UI's "Try it out" and code
 * generators reach the gateway the reader reached, on whatever port or name that was.
 */
function serverUrl(c: Context, publicUrl: string | undefined): string {
  return publicUrl ?? new URL(c.req.url).origin;
}

const shortHash = (text: string, length: number) => createHash('sha256').update(text).digest('base64url').slice(0, length);

/**
 * `GET /api/openapi.json`, `GET /api/docs` and `GET /api/docs/{asset}`: the API's description and its
 * viewer. Public and static: the app mounts these before authentication and rate limiting (a
 * browser loading the page's scripts sends no bearer token). The document is built here, once, when
 * the app is created; a broken route table therefore stops the gateway at start, not a reader later.
 * Only its `servers` entry is per request (serverUrl), and so is its ETag.
 */
export function openapiRoutes(opts: { publicUrl?: string } = {}): Hono {
  // Everything but `servers`, serialized once; each answer puts its server in front.
  const rest = JSON.stringify(buildOpenApiDocument()).slice(1);
  const restHash = shortHash(rest, 22);
  const site = new DocsSite();
  const app = new Hono();

  app.get('/api/openapi.json', (c) => {
    const server = serverUrl(c, opts.publicUrl);
    const etag = `"${restHash}-${shortHash(server, 8)}"`;
    // Revalidated on every use: it changes when the gateway is upgraded.
    c.header('Cache-Control', 'no-cache');
    c.header('ETag', etag);
    if (fresh(c, etag)) return c.body(null, 304);
    return c.body(`{"servers":${JSON.stringify([{ url: server }])},${rest}`, 200, { 'Content-Type': 'application/json; charset=utf-8' });
  });

  app.get('/api/docs', (c) => {
    c.header('Cache-Control', 'no-cache');
    c.header('ETag', site.htmlEtag);
    c.header('Content-Security-Policy', DOCS_PAGE_CSP);
    c.header('X-Content-Type-Options', 'nosniff');
    if (fresh(c, site.htmlEtag)) return c.body(null, 304);
    return c.html(site.html);
  });

  app.get('/api/docs/:asset', async (c) => {
    const pending = site.asset(c.req.param('asset'));
    if (!pending) return errorResponse(c, new StrandError(ErrorCode.INVALID_REQUEST, `no docs asset ${c.req.param('asset')}`));
    const asset = await pending;
    c.header('Cache-Control', asset.cacheControl);
    c.header('ETag', asset.etag);
    c.header('X-Content-Type-Options', 'nosniff');
    if (fresh(c, asset.etag)) return c.body(null, 304);
    return c.body(asset.body as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': asset.contentType });
  });

  return app;
}
