import path from 'node:path';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';

/** The workflows' entry file, bundled for the worker's isolated V8 contexts. */
export const WORKFLOWS_ENTRY = path.resolve(__dirname, '../../workflows/index.ts');

/**
 * Bundles the workflow code once, before Worker.create, so a worker start pays webpack once and tests
 * can share one bundle across many workers.
 */
export function buildWorkflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath: WORKFLOWS_ENTRY, logger: quietBundlerLogger });
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
