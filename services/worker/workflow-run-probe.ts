import { defaultPayloadConverter } from '@temporalio/common';
import { coresdk } from '@temporalio/proto';
import { sessionSettingsSchema } from '../../contracts/session-settings';
import type { SessionWorkflowInput } from '../../contracts/session-workflow';
import type { TurnWorkflowInput } from '../../contracts/turn-workflow';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
// The SDK's creator of workflow runs in a shared V8 context (what a worker uses by default); internal
// to the SDK, so what uses this (bench:workflow-start, workflow-bundle.test.ts) may need adjusting
// when the SDK changes it.
import { ReusableVMWorkflowCreator } from '@temporalio/worker/lib/workflow/reusable-vm';

/** The runs' first commands may name any activity (the probe runs none): a worker would have them registered. */
const anyActivity = new (class extends Set<string> {
  override has(): boolean {
    return true;
  }
})();

/** Inputs a run's first activation accepts: a first turn of an echo session, and a session's run. */
export const probeInputs = {
  turnWorkflow: { session_id: 'probe', project_path: '/probe', turn_number: 1, text: 'hi', settings: sessionSettingsSchema.parse({ model: 'scripted/echo' }), record: { last_turn: 0, requests: [] } } satisfies TurnWorkflowInput,
  sessionWorkflow: { session_id: 'probe' } satisfies SessionWorkflowInput,
};

/**
 * Starting workflow runs outside a worker, to measure and check what a run's start evaluates: the
 * bundle loaded into a shared V8 context as a worker loads it, and runs created there without a
 * server (no activation is sent; creating a run evaluates its modules).
 */
export async function workflowRunProbe(bundle: WorkflowBundleWithSourceMap) {
  // The bundle's source map is inline in its code; the creator only needs one for stack traces.
  const sourceMap = { version: 3, file: 'workflow-bundle.js', sources: [], names: [], mappings: '' };
  const creator = await ReusableVMWorkflowCreator.create({ code: bundle.code, sourceMap, filename: 'workflow-bundle.js' }, 5_000, anyActivity);
  return {
    /**
     * Creates one run of `workflowType`, runs its first activation with `input` (when given), and
     * disposes of it. The first activation is when the run evaluates its workflow's modules
     * (workflows/index.ts requires each type's module when a run of it starts) and takes its first
     * steps: what a worker pays before the run's first command. Answers the ids of the modules the run
     * evaluated itself (not the shared, preloaded ones).
     */
    async startRun(workflowType: string, runId: string, input?: unknown): Promise<string[]> {
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
      // The SDK keeps a run's own modules in its activator (internal, like the creator above).
      const ownModules = () => [...(workflow as unknown as { activator: { moduleCache: Map<string, unknown> } }).activator.moduleCache.keys()];
      try {
        if (input === undefined) return ownModules();
        const completion = await workflow.activate(
          coresdk.workflow_activation.WorkflowActivation.fromObject({
            runId,
            timestamp: { seconds: Math.floor(Date.now() / 1000) },
            jobs: [{ initializeWorkflow: { workflowType, workflowId: `probe-${runId}`, arguments: [defaultPayloadConverter.toPayload(input)] } }],
          }),
        );
        if (completion.failed) throw new Error(`the first activation of ${workflowType} failed: ${completion.failed.failure?.message}`);
        return ownModules();
      } finally {
        await workflow.dispose();
      }
    },
    /** A module of the shared context, as loaded there (preloaded modules are shared by every run). */
    sharedModule<T>(id: string): T | undefined {
      const context = (creator as unknown as { context: { __webpack_module_cache__: Record<string, { exports: T } | undefined> } }).context;
      return context.__webpack_module_cache__[id]?.exports;
    },
    destroy: () => creator.destroy(),
  };
}
