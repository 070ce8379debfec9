import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
// The SDK's creator of workflow runs in a shared V8 context (what a worker uses by default); internal
// to the SDK, so what uses this (bench:workflow-start, workflow-bundle.test.ts) may need adjusting
// when the SDK changes it.
import { ReusableVMWorkflowCreator } from '@temporalio/worker/lib/workflow/reusable-vm';

/**
 * Starting workflow runs outside a worker, to measure and check what a run's start evaluates: the
 * bundle loaded into a shared V8 context as a worker loads it, and runs created there without a
 * server (no activation is sent; creating a run evaluates its modules).
 */
export async function workflowRunProbe(bundle: WorkflowBundleWithSourceMap) {
  // The bundle's source map is inline in its code; the creator only needs one for stack traces.
  const sourceMap = { version: 3, file: 'workflow-bundle.js', sources: [], names: [], mappings: '' };
  const creator = await ReusableVMWorkflowCreator.create({ code: bundle.code, sourceMap, filename: 'workflow-bundle.js' }, 5_000, new Set());
  return {
    /** Creates (then disposes of) one run of `workflowType`. */
    async startRun(workflowType: string, runId: string): Promise<void> {
      const workflow = await creator.createWorkflow({
        info: {
          workflowType,
          workflowId: `probe-${runId}`,
          runId,
          namespace: 'default',
          taskQueue: 'probe',
          attempt: 1,
          searchAttributes: {},
          typedSearchAttributes: [],
          memo: {},
          unsafe: { isReplaying: false, now: () => Date.now() },
          historyLength: 1,
          historySize: 1,
          continueAsNewSuggested: false,
          startTime: new Date(),
          runStartTime: new Date(),
          firstExecutionRunId: runId,
          priority: {},
        } as never,
        randomnessSeed: [1, 2, 3, 4] as never,
        now: Date.now(),
        showStackTraceSources: false,
      });
      await workflow.dispose();
    },
    /** A module of the shared context, as loaded there (preloaded modules are shared by every run). */
    sharedModule<T>(id: string): T | undefined {
      const context = (creator as unknown as { context: { __webpack_module_cache__: Record<string, { exports: T } | undefined> } }).context;
      return context.__webpack_module_cache__[id]?.exports;
    },
    destroy: () => creator.destroy(),
  };
}
