import type { Context } from 'hono';

/**
 * What the gateway's static pages (the chat page, the operator view, the API docs and their files)
 * share: their Content-Security-Policy, revalidation by ETag, and how their routes describe that in
 * the OpenAPI document.
 */

/**
 * A page's Content-Security-Policy: scripts, styles, images and requests from its own origin only
 * (images also as data: URIs); no inline script, no CDN, no frame, no form posting anywhere.
 * `styleSrc` is the one thing a page may widen (Swagger UI sets style attributes).
 */
export function ownOriginCsp(styleSrc = "'self'"): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src ${styleSrc}`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Whether the client already holds this version (`If-None-Match`, possibly a list). */
export function fresh(c: Context, etag: string): boolean {
  const held = c.req.header('If-None-Match');
  return held !== undefined && held.split(',').some((t) => t.trim() === etag || t.trim() === '*');
}

/** A response header, as the document describes it. */
export const header = (description: string) => ({ description, schema: { type: 'string' as const } });
export const CACHE_HEADERS = { ETag: header('Content hash; send it back in If-None-Match to get 304.'), 'Cache-Control': header('How long the body may be cached.') };
export const NOT_MODIFIED = { description: 'Not modified (If-None-Match matched).' };
/** A text body (HTML, CSS, a script), as the document describes it. */
export const TEXT_BODY = { schema: { type: 'string' as const } };
