import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { binaryPaths } from '../../infra/bootstrap/paths';
import { loadWorkflowBundle } from '../../services/worker/workflow-bundle';

/**
 * Temporal's time-skipping test server (the bootstrapped binary) and the workflow bundle, side by side.
 * The bundle comes from the worker's on-disk cache (services/worker/bundle-cache.ts: valid while no
 * file of it changed): a dozen test files bundle the same workflows, and webpack is seconds each on
 * a busy machine, paid by every file for nothing.
 */
export function timeSkippingEnvAndBundle(): Promise<[TestWorkflowEnvironment, WorkflowBundleWithSourceMap]> {
  return Promise.all([
    TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: binaryPaths().testServerWrapper } } }),
    loadWorkflowBundle(),
  ]);
}
