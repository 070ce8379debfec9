import { loadWorkflowBundle, workerInterceptorModules } from '../../services/worker/workflow-bundle';

/**
 * Fills the worker's workflow-bundle cache (services/worker/bundle-cache.ts) for both of the bundles a
 * worker process may ask for (tracing off and on), so that a worker started later loads its workflows
 * from the cache instead of bundling them with webpack first (bench:startup: a worker's start with an
 * empty cache takes several times as long). The container image runs this at build time, into the
 * cache folder its workers read (STRAND_WORKFLOW_BUNDLE_CACHE in the Dockerfile); entries stay valid
 * only while the workflow sources are unchanged, so this is an image's job, not `npm start`'s.
 *
 * usage: npx tsx infra/build/warm-workflow-bundles.ts
 */
async function main(): Promise<void> {
  for (const tracing of [false, true]) {
    const started = Date.now();
    const bundle = await loadWorkflowBundle((m) => console.error(`[workflows] ${m}`), workerInterceptorModules(tracing));
    console.error(`[workflows] bundle with tracing ${tracing ? 'on' : 'off'}: ${bundle.fromCache ? 'already cached' : 'built and cached'} in ${Date.now() - started} ms`);
  }
}

main().catch((err: unknown) => {
  console.error(`[workflows] FAILED: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
