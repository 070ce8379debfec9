import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { binaryPaths } from '../../infra/bootstrap/paths';
import { buildWorkflowBundle } from '../../services/worker/workflow-bundle';

/** Temporal's time-skipping test server (the bootstrapped binary) and the workflow bundle, built side by side. */
export function timeSkippingEnvAndBundle(): Promise<[TestWorkflowEnvironment, WorkflowBundleWithSourceMap]> {
  return Promise.all([
    TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: binaryPaths().testServerWrapper } } }),
    buildWorkflowBundle(),
  ]);
}
