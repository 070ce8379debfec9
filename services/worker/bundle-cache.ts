import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';

/**
 * The workflow bundle kept on disk between worker starts. Bundling runs webpack (about 4 s on a quiet
 * 2-core machine, far more on a busy one), and a worker restarted after a crash is what a crashed
 * worker's turn waits for: with the cache a restart loads the bundle in milliseconds.
 *
 * An entry is valid only while every source file webpack put into it is unchanged: the bundle's own
 * source map lists them (absolute paths: ours and node_modules'), and each is checked by content hash,
 * unless its size and modification time are still those recorded with the hash (a stat instead of a
 * read and a hash: most of a cache hit's cost). As git does with its index, a stamp is trusted only
 * when the file was last modified well before it was recorded: a file rewritten within the clock's
 * granularity of the recorded time, with the same size, would otherwise keep its stamp.
 * One entry per checkout (keyed by its path), replaced atomically.
 *
 * The bundle is kept, and handed to the worker, without the source map's `sourcesContent` (the text
 * of every source file, a third of the bundle): the stack traces of workflow failures need only the
 * mappings, and the one reader of the contents, the SDK's enhanced stack-trace query, returns them
 * only with the worker's `showStackTraceSources`, which strand leaves off. The worker parses, compiles
 * and sends the bundle to its workflow thread at every start, so its size is start time.
 */
interface SourceStamp {
  hash: string;
  size: number;
  mtimeMs: number;
}

interface CacheEntry {
  v: 2;
  code: string;
  /** When the stamps were taken (ms since the epoch). */
  recordedAt: number;
  files: Record<string, SourceStamp>;
}

/** How much older than its record a file's modification must be for its stamp to be trusted. */
const RACY_MARGIN_MS = 2_000;

/** `$STRAND_WORKFLOW_BUNDLE_CACHE`, else the cache dir the bootstrap uses (`~/.cache/strand`) + `workflow-bundles`. */
export function bundleCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.STRAND_WORKFLOW_BUNDLE_CACHE?.trim();
  if (explicit) return explicit;
  const base = env.STRAND_CACHE_DIR?.trim() || path.join(env.XDG_CACHE_HOME?.trim() || path.join(os.homedir(), '.cache'), 'strand');
  return path.join(base, 'workflow-bundles');
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** The bundle of `recipe`, from the cache when every file it was built from is unchanged, else built and cached. */
export async function cachedBundle(
  /** What the bundle is built from and how (entry, preloaded modules…): a different recipe is a different entry. */
  recipe: string,
  build: () => Promise<WorkflowBundleWithSourceMap>,
  opts: { dir?: string; log?: (message: string) => void } = {},
): Promise<WorkflowBundleWithSourceMap & { fromCache: boolean }> {
  const dir = opts.dir ?? bundleCacheDir();
  const file = path.join(dir, `${sha256(recipe).slice(0, 24)}.json`);
  const hit = readValid(file);
  if (hit) return { code: hit.code, sourceMap: '', fromCache: true };
  const bundle = await build();
  const code = withoutSourcesContent(bundle.code);
  try {
    const recordedAt = Date.now();
    const files = sourcesOf(code);
    if (files) write(file, { v: 2, code, recordedAt, files });
  } catch (err) {
    // A cache that cannot be written costs the next start a rebuild, nothing else.
    opts.log?.(`workflow bundle not cached (${(err as Error).message})`);
  }
  return { code, sourceMap: '', fromCache: false };
}

function readValid(file: string): CacheEntry | undefined {
  let entry: CacheEntry;
  try {
    entry = JSON.parse(fs.readFileSync(file, 'utf8')) as CacheEntry;
  } catch {
    return undefined;
  }
  if (entry.v !== 2 || typeof entry.code !== 'string' || !entry.files || typeof entry.recordedAt !== 'number') return undefined;
  for (const [source, stamp] of Object.entries(entry.files)) {
    try {
      const now = fs.statSync(source);
      const trusted = stamp.mtimeMs < entry.recordedAt - RACY_MARGIN_MS;
      if (trusted && now.size === stamp.size && now.mtimeMs === stamp.mtimeMs) continue;
      if (sha256(fs.readFileSync(source)) !== stamp.hash) return undefined;
    } catch {
      return undefined;
    }
  }
  return entry;
}

/** Where the inline source map begins, and the map; undefined when the bundle has none. */
function inlineSourceMap(code: string): { at: number; map: { sources: string[]; sourcesContent?: unknown } } | undefined {
  const at = code.lastIndexOf('//# sourceMappingURL=data:');
  if (at < 0) return undefined;
  const base64 = code.slice(code.indexOf('base64,', at) + 'base64,'.length).trim();
  return { at, map: JSON.parse(Buffer.from(base64, 'base64').toString('utf8')) as { sources: string[] } };
}

/** The bundle with its inline source map minus `sourcesContent` (see above); as it was when it has none. */
export function withoutSourcesContent(code: string): string {
  const inline = inlineSourceMap(code);
  if (!inline?.map.sourcesContent) return code;
  const { sourcesContent: _dropped, ...map } = inline.map;
  return `${code.slice(0, inline.at)}//# sourceMappingURL=data:application/json;charset=utf-8;base64,${Buffer.from(JSON.stringify(map)).toString('base64')}`;
}

/** Every real file the bundle was built from, with its stamp; undefined when the source map is missing. */
function sourcesOf(code: string): Record<string, SourceStamp> | undefined {
  const map = inlineSourceMap(code)?.map;
  if (!map) return undefined;
  const files: Record<string, SourceStamp> = {};
  for (const source of map.sources) {
    if (!path.isAbsolute(source)) continue; // webpack's own runtime modules
    // The entry point webpack generates is rebuilt from the others; any other missing file voids the entry.
    if (!fs.existsSync(source)) {
      if (source.endsWith('-autogenerated-entrypoint.cjs')) continue;
      return undefined;
    }
    const { size, mtimeMs } = fs.statSync(source);
    files[source] = { hash: sha256(fs.readFileSync(source)), size, mtimeMs };
  }
  return files;
}

function write(file: string, entry: CacheEntry): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(entry));
  fs.renameSync(tmp, file);
}
