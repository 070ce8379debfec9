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
 * `GET /api/openapi.json`, `GET /api/docs` and `GET /api/docs/{asset}`: the API's description and its
 * viewer. Public and static: the app mounts these before authentication and rate limiting (a
 * browser loading the page's scripts sends no bearer token). The document is built here, once, when
 * the app is created; a broken route table therefore stops the gateway at start, not a reader later.
 */
export function openapiRoutes(): Hono {
  const document = JSON.stringify(buildOpenApiDocument());
  const documentEtag = `"${createHash('sha256').update(document).digest('base64url').slice(0, 22)}"`;
  const site = new DocsSite();
  const app = new Hono();

  app.get('/api/openapi.json', (c) => {
    // Revalidated on every use: it changes when the gateway is upgraded.
    c.header('Cache-Control', 'no-cache');
    c.header('ETag', documentEtag);
    if (fresh(c, documentEtag)) return c.body(null, 304);
    return c.body(document, 200, { 'Content-Type': 'application/json; charset=utf-8' });
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
