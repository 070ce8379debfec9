import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { build, type Metafile } from 'esbuild';

/**
 * Builds strand's web pages (clients/web/src) into dist/web with esbuild: for each page one script and one
 * stylesheet, named by their content hash, and manifest.json naming them. The gateway serves the chat
 * page at `/` and the operator view at `/operator` (services/gateway/http/web-route.ts). Each page is
 * its own entry, so the chat page does not carry the operator view's chart library. `npm start` and
 * `npm test` run this through their install step (infra/ensure-deps.sh); it does nothing when no
 * input changed since the last build.
 *
 * usage: npx tsx clients/web/build.ts [--force]
 */
/** The repository's root: inputs in the manifest and the output folder are named from there. */
const root = path.resolve(__dirname, '..', '..');
const webDir = path.join(root, 'clients', 'web');
/** Each page's entry module, by the name its output files start with. */
export const WEB_ENTRIES = {
  app: path.join(webDir, 'src', 'main.tsx'),
  operator: path.join(webDir, 'src', 'operator', 'main.tsx'),
} as const;
export type WebEntry = keyof typeof WEB_ENTRIES;
export const WEB_OUT_DIR = path.join(root, 'dist', 'web');

/** One page's files (relative to the output folder). */
export interface WebEntryFiles {
  script: string;
  style: string;
}

/** What a build wrote: each page's files, and their sizes. */
export interface WebManifest {
  entries: Record<WebEntry, WebEntryFiles>;
  /** Bytes of each output file, and gzipped: what docs/web.md and docs/operator.md quote. */
  sizes: Record<string, number>;
  gzip: Record<string, number>;
  /** Every input file with its modification time: a build with the same inputs is skipped. */
  inputs: Record<string, number>;
}

const MANIFEST = 'manifest.json';

function readManifest(outDir: string): WebManifest | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(outDir, MANIFEST), 'utf8')) as WebManifest;
  } catch {
    return undefined;
  }
}

/** Whether the last build's inputs are all unchanged (and its outputs still there). */
function upToDate(outDir: string, manifest: WebManifest | undefined): boolean {
  // A manifest of an older layout (no `entries`) is rebuilt.
  if (!manifest?.entries || Object.keys(WEB_ENTRIES).some((e) => !manifest.entries[e as WebEntry])) return false;
  const files = Object.values(manifest.entries).flatMap((e) => [e.script, e.style]);
  if (!files.every((f) => fs.existsSync(path.join(outDir, f)))) return false;
  // A new file under clients/web/src is an input the last build did not know of.
  const newest = newestIn(path.join(webDir, 'src'));
  if (newest > Math.max(0, ...Object.values(manifest.inputs))) return false;
  return Object.entries(manifest.inputs).every(([file, mtime]) => {
    try {
      return fs.statSync(path.join(root, file)).mtimeMs === mtime;
    } catch {
      return false;
    }
  });
}

function newestIn(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestIn(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

const gzipSize = (file: string) => zlib.gzipSync(fs.readFileSync(file)).length;

/**
 * Builds the bundle unless it is up to date; returns its manifest. The files are written to a fresh
 * folder that then replaces the old one, so a gateway (or a second build) never reads half a build.
 */
export async function buildWeb(opts: { outDir?: string; force?: boolean } = {}): Promise<WebManifest> {
  const outDir = opts.outDir ?? WEB_OUT_DIR;
  const previous = readManifest(outDir);
  if (!opts.force && upToDate(outDir, previous)) return previous!;
  const staging = `${outDir}.tmp-${process.pid}-${Date.now()}`;
  fs.mkdirSync(staging, { recursive: true });
  try {
    const result = await build({
      absWorkingDir: root,
      entryPoints: WEB_ENTRIES,
      bundle: true,
      minify: true,
      sourcemap: false,
      format: 'iife',
      target: ['chrome110', 'firefox115', 'safari16'],
      jsx: 'automatic',
      jsxImportSource: 'preact',
      entryNames: '[name]-[hash]',
      outdir: staging,
      metafile: true,
      legalComments: 'none',
      logLevel: 'warning',
      tsconfig: path.join(webDir, 'tsconfig.json'),
      define: { 'process.env.NODE_ENV': '"production"' },
    });
    const manifest = manifestOf(result.metafile, staging);
    fs.writeFileSync(path.join(staging, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    const old = `${outDir}.old-${process.pid}-${Date.now()}`;
    if (fs.existsSync(outDir)) fs.renameSync(outDir, old);
    fs.renameSync(staging, outDir);
    fs.rmSync(old, { recursive: true, force: true });
    return manifest;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

function manifestOf(metafile: Metafile, dir: string): WebManifest {
  const outputs = Object.keys(metafile.outputs).map((o) => path.basename(o));
  const entries = {} as Record<WebEntry, WebEntryFiles>;
  for (const [name, source] of Object.entries(WEB_ENTRIES) as Array<[WebEntry, string]>) {
    // The script is the output whose entry point is this page's; its stylesheet is the CSS bundled beside it.
    const [out, meta] = Object.entries(metafile.outputs).find(([, o]) => o.entryPoint && path.resolve(root, o.entryPoint) === source) ?? [];
    if (!out || !meta?.cssBundle) throw new Error(`the web build wrote ${outputs.join(', ')}: expected a .js and a .css for ${name}`);
    entries[name] = { script: path.basename(out), style: path.basename(meta.cssBundle) };
  }
  const inputs: Record<string, number> = {};
  for (const input of Object.keys(metafile.inputs)) inputs[input] = fs.statSync(path.join(root, input)).mtimeMs;
  const sizes = Object.fromEntries(outputs.map((o) => [o, fs.statSync(path.join(dir, o)).size]));
  const gzip = Object.fromEntries(outputs.map((o) => [o, gzipSize(path.join(dir, o))]));
  return { entries, sizes, gzip, inputs };
}

if (require.main === module) {
  const started = Date.now();
  buildWeb({ force: process.argv.includes('--force') }).then(
    (m) => {
      const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;
      const files = Object.values(m.entries).flatMap((e) => [e.script, e.style]);
      console.error(`[web] ${files.map((f) => `${f} ${kb(m.sizes[f]!)} (gzip ${kb(m.gzip[f]!)})`).join(', ')} in ${Date.now() - started} ms`);
    },
    (err: unknown) => {
      console.error(`[web] build FAILED: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
