import { createHash } from 'node:crypto';
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { z } from 'zod';
import { ErrorCode, StrandError } from '../../../../contracts/errors';
import { DOCS_ASSET_NAMES, DOCS_PAGE_CSP, DocsSite } from './docs-page';
import { errors, openApiApp, PUBLIC } from './route-kit';
import { CACHE_HEADERS, fresh, NOT_MODIFIED, TEXT_BODY } from '../static-pages';

/**
 * The `servers` entry of the document as one client sees it: the configured public URL, else the
 * origin of the request itself (scheme, Host header, port), so Swagger UI's "Try it out" and code
 * generators reach the gateway the reader reached, on whatever port or name that was.
 */
function serverUrl(c: Context, publicUrl: string | undefined): string {
  return publicUrl ?? new URL(c.req.url).origin;
}

const shortHash = (text: string, length: number) => createHash('sha256').update(text).digest('base64url').slice(0, length);

const common = { tags: ['service'], ...PUBLIC };

const documentRoute = createRoute({
  method: 'get',
  path: '/api/openapi.json',
  operationId: 'openApiDocument',
  summary: 'This document',
  ...common,
  responses: {
    200: {
      description: 'OpenAPI 3.1, built once when the gateway starts.',
      headers: CACHE_HEADERS,
      // Its own shape is OpenAPI 3.1's.
      content: { 'application/json': { schema: z.looseObject({ openapi: z.string(), info: z.looseObject({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) }) } },
    },
    304: NOT_MODIFIED,
  },
});

const pageRoute = createRoute({
  method: 'get',
  path: '/api/docs',
  operationId: 'docsPage',
  summary: 'This document in Swagger UI',
  description: 'Served with its assets by the gateway; the page reaches nothing but the gateway.',
  ...common,
  responses: { 200: { description: 'The page.', headers: CACHE_HEADERS, content: { 'text/html': TEXT_BODY } }, 304: NOT_MODIFIED },
});

const assetRoute = createRoute({
  method: 'get',
  path: '/api/docs/{asset}',
  operationId: 'docsAsset',
  summary: "The docs page's scripts, styles and icons",
  ...common,
  request: { params: z.object({ asset: z.enum(DOCS_ASSET_NAMES as [string, ...string[]]).describe('A file the page loads.') }) },
  responses: {
    200: { description: 'The file.', headers: CACHE_HEADERS, content: { 'text/css': TEXT_BODY, 'text/javascript': TEXT_BODY, 'image/png': {} } },
    304: NOT_MODIFIED,
  },
  ...errors(ErrorCode.INVALID_REQUEST),
});

/**
 * `GET /api/openapi.json`, `GET /api/docs` and `GET /api/docs/{asset}`: the API's description and its
 * viewer. Public and static: the app mounts these before authentication and rate limiting (a
 * browser loading the page's scripts sends no bearer token). `document` is the app's document, built
 * once the app has all its routes (app.ts); only its `servers` entry is per request (serverUrl), and
 * so is its ETag.
 */
export function openapiRoutes(opts: { publicUrl?: string; document: () => object }): OpenAPIHono {
  // Everything but `servers`, serialized once; each answer puts its server in front.
  let cached: { rest: string; hash: string } | undefined;
  const serialized = () => {
    if (!cached) {
      const rest = JSON.stringify(opts.document()).slice(1);
      cached = { rest, hash: shortHash(rest, 22) };
    }
    return cached;
  };
  const site = new DocsSite();
  const app = openApiApp();

  app.openapi(documentRoute, (c) => {
    const { rest, hash } = serialized();
    const server = serverUrl(c, opts.publicUrl);
    const etag = `"${hash}-${shortHash(server, 8)}"`;
    // Revalidated on every use: it changes when the gateway is upgraded.
    c.header('Cache-Control', 'no-cache');
    c.header('ETag', etag);
    if (fresh(c, etag)) return c.body(null, 304);
    return c.body(`{"servers":${JSON.stringify([{ url: server }])},${rest}`, 200, { 'Content-Type': 'application/json; charset=utf-8' });
  });

  app.openapi(pageRoute, (c) => {
    c.header('Cache-Control', 'no-cache');
    c.header('ETag', site.htmlEtag);
    c.header('Content-Security-Policy', DOCS_PAGE_CSP);
    c.header('X-Content-Type-Options', 'nosniff');
    if (fresh(c, site.htmlEtag)) return c.body(null, 304);
    return c.html(site.html);
  });

  app.openapi(
    assetRoute,
    async (c) => {
      const asset = await site.asset(c.req.valid('param').asset)!;
      c.header('Cache-Control', asset.cacheControl);
      c.header('ETag', asset.etag);
      c.header('X-Content-Type-Options', 'nosniff');
      if (fresh(c, asset.etag)) return c.body(null, 304);
      return c.body(asset.body as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': asset.contentType });
    },
    (result, c) => {
      if (!result.success) throw new StrandError(ErrorCode.INVALID_REQUEST, `no docs asset ${c.req.param('asset')}`);
      return undefined;
    },
  );

  return app;
}
