import fs from 'node:fs';
import path from 'node:path';
import { buildServices, bundlePath, MANIFEST, recipeHash, ROOT, SERVICE_ENTRIES, SERVICES_OUT_DIR, sha256, type ServiceBundle, type ServicesManifest } from './services-build';

/**
 * Whether dist/services is the build of this checkout. A stale build must never be started silently:
 * `npm start` rebuilds it first (ensureServicesBuilt), and `services-build.ts --check` says why it is stale.
 *
 * Fresh means: the manifest is there, written by the same recipe (build options, esbuild, tsconfig),
 * every bundle is there, and every input file the build read still has the content it had (sha256;
 * content, not modification times, so a checkout or a `touch` alone rebuilds nothing). A new file
 * matters only once an input imports it, which changes that input.
 */
export type BuildState = { fresh: true } | { fresh: false; why: string };

export function readServicesManifest(outDir = SERVICES_OUT_DIR): ServicesManifest | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(outDir, MANIFEST), 'utf8')) as ServicesManifest;
  } catch {
    return undefined;
  }
}

export function servicesBuildState(opts: { outDir?: string; root?: string; recipe?: string } = {}): BuildState {
  const outDir = opts.outDir ?? SERVICES_OUT_DIR;
  const root = opts.root ?? ROOT;
  const manifest = readServicesManifest(outDir);
  if (!manifest?.inputs || typeof manifest.recipe !== 'string') return { fresh: false, why: `no build in ${path.relative(root, outDir) || outDir}` };
  if (manifest.recipe !== (opts.recipe ?? recipeHash())) return { fresh: false, why: 'the build recipe changed (services-build.ts, esbuild or tsconfig.json)' };
  const missing = (Object.keys(SERVICE_ENTRIES) as ServiceBundle[]).filter((name) => !fs.existsSync(bundlePath(name, outDir)));
  if (missing.length > 0) return { fresh: false, why: `bundles missing: ${missing.join(', ')}` };
  const changed = Object.entries(manifest.inputs).filter(([file, hash]) => {
    try {
      return sha256(fs.readFileSync(path.join(root, file))) !== hash;
    } catch {
      return true; // deleted or unreadable
    }
  });
  if (changed.length === 0) return { fresh: true };
  const named = changed.slice(0, 3).map(([file]) => file).join(', ');
  return { fresh: false, why: `${changed.length} source file${changed.length === 1 ? '' : 's'} changed since the build (${named}${changed.length > 3 ? ', …' : ''})` };
}

/** Builds dist/services unless it is fresh (or `force`); says why it builds. */
export async function ensureServicesBuilt(opts: { force?: boolean; log?: (message: string) => void; outDir?: string } = {}): Promise<{ built: boolean }> {
  const state: BuildState = opts.force ? { fresh: false, why: 'forced' } : servicesBuildState(opts.outDir ? { outDir: opts.outDir } : {});
  if (state.fresh) return { built: false };
  opts.log?.(`building the services (${state.why})…`);
  await buildServices(opts.outDir);
  return { built: true };
}
