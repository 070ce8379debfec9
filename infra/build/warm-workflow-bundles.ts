import fs from 'node:fs';
import { bundleCacheDir } from '../../services/worker/bundle-cache';
import { loadWorkflowBundle, workerInterceptorModules } from '../../services/worker/workflow-bundle';

/**
 * Fills the worker's workflow-bundle cache (services/worker/bundle-cache.ts) for the bundles a worker
 * process may ask for (tracing off and on), so that a worker started later loads its workflows from
 * the cache instead of bundling them with webpack first (bench:startup: a worker's start with an
 * empty cache takes two to three times as long). The container image runs this at build time, into
 * the cache folder its workers read (STRAND_WORKFLOW_BUNDLE_CACHE in the Dockerfile); entries stay
 * valid only while the workflow sources are unchanged, so this is an image's job, not `npm start`'s.
 *
 * The cache keeps a bundle only when every source file its source map names exists; the tracing
 * bundle names TypeScript sources that @opentelemetry/api does not ship, so today it is bundled but
 * not kept, and this says so.
 *
 * usage: npx tsx infra/build/warm-workflow-bundles.ts
 */
const entries = () => {
  try {
    return new Set(fs.readdirSync(bundleCacheDir()));
  } catch {
    return new Set<string>();
  }
};

async function main(): Promise<void> {
  for (const tracing of [false, true]) {
    const started = Date.now();
    const before = entries();
    const bundle = await loadWorkflowBundle((m) => console.error(`[workflows] ${m}`), workerInterceptorModules(tracing));
    const kept = bundle.fromCache ? 'already cached' : [...entries()].some((e) => !before.has(e)) ? 'bundled and cached' : 'bundled, NOT cached (the cache refused it)';
    console.error(`[workflows] the bundle with tracing ${tracing ? 'on' : 'off'}: ${kept} in ${Date.now() - started} ms`);
  }
}

main().catch((err: unknown) => {
  console.error(`[workflows] FAILED: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
