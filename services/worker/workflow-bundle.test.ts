import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { z } from 'zod';
import { ReusableVMWorkflowCreator } from '@temporalio/worker/lib/workflow/reusable-vm';
import { buildWorkflowBundle } from './workflow-bundle';

/**
 * The workflow bundle shares zod across workflow runs and keeps the contracts a run evaluates to the
 * ones workflows use: both are what a turn's start costs (bench:workflow-start), and both are easy
 * to undo by accident (webpack drops an unused preload; one import of the event union brings it back).
 */
describe('workflow bundle', () => {
  let bundle: WorkflowBundleWithSourceMap;
  beforeAll(async () => {
    bundle = await buildWorkflowBundle();
  }, 60_000);

  it('preloads zod into the shared context (webpack did not drop the preload as unused)', () => {
    const preload = /exports\.preloadModules = function preloadModules\(\) \{([^}]*)\}/.exec(bundle.code);
    expect(preload?.[1]).toContain('./workflows/preload/shared-zod.ts');
  });

  it('keeps the event union and the store messages out of every workflow run', () => {
    expect(bundle.code).not.toContain('"./contracts/agent-events.ts"');
    expect(bundle.code).not.toContain('"./contracts/session-store/messages.ts"');
  });

  it('starts runs whose schemas work on the shared, frozen zod (parse, refuse, report)', async () => {
    const sourceMap = { version: 3, file: 'workflow-bundle.js', sources: [], names: [], mappings: '' };
    const creator = await ReusableVMWorkflowCreator.create({ code: bundle.code, sourceMap, filename: 'workflow-bundle.js' }, 5_000, new Set());
    try {
      for (const runId of ['first', 'second']) {
        // Creating a run evaluates the contracts' schemas (z.object, enums, refinements) against the frozen zod.
        const workflow = await creator.createWorkflow({
          info: {
            workflowType: 'turnWorkflow',
            workflowId: `wf-${runId}`,
            runId,
            namespace: 'default',
            taskQueue: 'test',
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
      }
      // Validation in the shared context: zod's global config (locale) was set before the freeze.
      const context = (creator as unknown as { context: { __webpack_module_cache__: Record<string, { exports: { sharedZod: typeof z } }> } }).context;
      const { sharedZod } = context.__webpack_module_cache__['./workflows/preload/shared-zod.ts']!.exports;
      const schema = sharedZod.object({ text: sharedZod.string().min(1), n: sharedZod.number().int() });
      expect(schema.parse({ text: 'hi', n: 2 })).toEqual({ text: 'hi', n: 2 });
      const refused = schema.safeParse({ text: '', n: 1.5 });
      expect(refused.success).toBe(false);
      expect(refused.error?.issues.map((i) => i.path.join('.'))).toEqual(['text', 'n']);
      expect(refused.error?.issues[0]?.message).toMatch(/at least 1|>=1/i);
    } finally {
      await creator.destroy();
    }
  }, 60_000);
});
