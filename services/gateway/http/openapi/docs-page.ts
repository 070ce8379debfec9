import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ownOriginCsp } from '../static-pages';

/**
 * The API document viewer at `/api/docs`: Swagger UI from the installed swagger-ui-dist package,
 * served by the gateway itself (no CDN, nothing fetched from anywhere but the gateway). The page
 * reads `/api/openapi.json`; the validator badge, which would send the document to
 * validator.swagger.io, is off, and the page's Content-Security-Policy lets it reach its own origin
 * only, so a future Swagger UI that wants to phone home is stopped by the browser.
 */

/** Files of swagger-ui-dist the page loads, with their content types. */
const PACKAGE_FILES: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/** Our own start-up script (served as a file so the page needs no inline script under its CSP). */
const INIT_SCRIPT_NAME = 'strand-docs.js';
const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: 'openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

/** Every name `/api/docs/{asset}` serves. */
export const DOCS_ASSET_NAMES: readonly string[] = [...Object.keys(PACKAGE_FILES), INIT_SCRIPT_NAME];

/** The page may load scripts, styles, images and data from its own origin only. */
// Swagger UI (React) sets style attributes; its CSS embeds its icons as data: URIs.
export const DOCS_PAGE_CSP = ownOriginCsp("'self' 'unsafe-inline'");

export interface DocsAsset {
  body: Uint8Array;
  contentType: string;
  etag: string;
  /** Assets whose URL carries their version never change under that URL. */
  cacheControl: string;
}

const etagOf = (body: Uint8Array | string) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;

/** Where swagger-ui-dist is installed, found the way Node finds the package. */
function swaggerUiDir(): string {
  return path.dirname(require.resolve('swagger-ui-dist/package.json'));
}

/**
 * The page and its assets. Package files are read on first request and kept (the bundle is 1.7 MB:
 * a gateway nobody opens the docs of never loads it).
 */
export class DocsSite {
  readonly version: string;
  readonly html: string;
  readonly htmlEtag: string;
  private readonly loaded = new Map<string, Promise<DocsAsset>>();
  private readonly initEtag = etagOf(INIT_SCRIPT);

  constructor(private readonly dir: string = swaggerUiDir()) {
    this.version = (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
    this.html = this.page();
    this.htmlEtag = etagOf(this.html);
  }

  /** The URL of an asset relative to `/api/docs`, versioned so caches never serve a stale one. */
  private url(name: string): string {
    const v = name === INIT_SCRIPT_NAME ? this.initEtag.slice(1, 9) : this.version;
    return `docs/${name}?v=${v}`;
  }

  private page(): string {
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>strand HTTP API</title>
<link rel="stylesheet" href="${this.url('swagger-ui.css')}">
<link rel="icon" type="image/png" sizes="32x32" href="${this.url('favicon-32x32.png')}">
<link rel="icon" type="image/png" sizes="16x16" href="${this.url('favicon-16x16.png')}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${this.url('swagger-ui-bundle.js')}"></script>
<script src="${this.url(INIT_SCRIPT_NAME)}"></script>
</body>
</html>
`;
  }

  /** The asset by name, or undefined for a name the page does not use (nothing else is readable). */
  asset(name: string): Promise<DocsAsset> | undefined {
    const immutable = 'public, max-age=31536000, immutable';
    if (name === INIT_SCRIPT_NAME) return Promise.resolve({ body: Buffer.from(INIT_SCRIPT), contentType: 'text/javascript; charset=utf-8', etag: this.initEtag, cacheControl: immutable });
    const contentType = Object.hasOwn(PACKAGE_FILES, name) ? PACKAGE_FILES[name] : undefined;
    if (!contentType) return undefined;
    let got = this.loaded.get(name);
    if (!got) {
      got = fs.promises.readFile(path.join(this.dir, name)).then((body) => ({ body, contentType, etag: etagOf(body), cacheControl: immutable }));
      // A failed read is not remembered: the next request tries again.
      got.catch(() => this.loaded.delete(name));
      this.loaded.set(name, got);
    }
    return got;
  }
}
