import path from 'node:path';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { cachedBundle } from './bundle-cache';

/** The workflows' entry file, bundled for the worker's isolated V8 contexts. */
const WORKFLOWS_ENTRY = path.resolve(__dirname, '../../workflows/index.ts');

/**
 * Modules evaluated once per worker in the shared V8 context and shared by every workflow run, instead
 * of once per run: zod (workflows/preload/shared-zod.ts says why that is safe). A turn is a new
 * workflow run, so whatever each run evaluates is paid on every prompt; `npm run bench:workflow-start`
 * measures a run's start with and without this.
 */
export const PRELOADED_WORKFLOW_MODULES = [path.resolve(__dirname, '../../workflows/preload/shared-zod.ts')];

/**
 * Workflow interceptors of the worker's own (services/worker/workflow-interceptors/), bundled with the
 * workflows, never part of them: the turn metrics always (they need the worker's `turnMetrics` sink),
 * the OpenTelemetry ones while tracing is on (they need its `exporter` sink). Tests that build a bundle
 * for workers of their own leave them out.
 */
const TURN_METRICS_INTERCEPTORS = path.resolve(__dirname, 'workflow-interceptors/turn-metrics.ts');
const TRACING_INTERCEPTORS = path.resolve(__dirname, 'workflow-interceptors/tracing.ts');

/** The interceptor modules of a worker process's bundle. */
export function workerInterceptorModules(tracing: boolean): string[] {
  return tracing ? [TURN_METRICS_INTERCEPTORS, TRACING_INTERCEPTORS] : [TURN_METRICS_INTERCEPTORS];
}

/**
 * Bundles the workflow code once, before Worker.create, so a worker start pays webpack once and tests
 * can share one bundle across many workers.
 */
export function buildWorkflowBundle(interceptorModules: string[] = []): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath: WORKFLOWS_ENTRY,
    preloadModules: PRELOADED_WORKFLOW_MODULES,
    ...(interceptorModules.length > 0 ? { workflowInterceptorModules: interceptorModules } : {}),
    logger: quietBundlerLogger,
  });
}

/**
 * The bundle a worker process starts with: from the on-disk cache while no source file of it changed
 * (bundle-cache.ts), so a worker restarted after a crash is polling again within a second or two.
 */
export function loadWorkflowBundle(log?: (message: string) => void, interceptorModules: string[] = []): Promise<WorkflowBundleWithSourceMap & { fromCache: boolean }> {
  const recipe = JSON.stringify({ entry: WORKFLOWS_ENTRY, preload: PRELOADED_WORKFLOW_MODULES, ...(interceptorModules.length > 0 ? { interceptors: interceptorModules } : {}) });
  return cachedBundle(recipe, () => buildWorkflowBundle(interceptorModules), log ? { log } : {});
}

const noop = () => undefined;
const quietBundlerLogger = {
  trace: noop,
  debug: noop,
  info: noop,
  warn: (message: string) => console.warn(`[bundler] ${message}`),
  error: (message: string) => console.error(`[bundler] ${message}`),
  log: noop,
};
