import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { z } from 'zod';
import { buildWorkflowBundle } from './workflow-bundle';
import { probeInputs, workflowRunProbe } from './workflow-run-probe';

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

  it("evaluates only the run's own workflow: a turn pays for no session, job or checkpoint module, nor the tools' parameter schemas", async () => {
    const probe = await workflowRunProbe(bundle);
    try {
      const turn = await probe.startRun('turnWorkflow', 'turn', probeInputs.turnWorkflow);
      expect(turn).toContain('./workflows/turn/turn-workflow.ts');
      for (const other of ['./workflows/session/session-workflow.ts', './workflows/job/job-workflow.ts', './contracts/job-spec.ts', './workflows/checkpoint-list.ts', './contracts/tools.ts']) expect(turn).not.toContain(other);
      // An input a session built is read without zod (workflows/turn/turn-input.ts): none of the turn's input schemas is evaluated.
      for (const schemas of ['./contracts/turn-workflow.ts', './contracts/session-settings.ts', './contracts/subagents.ts', './contracts/prompt-images.ts']) expect(turn).not.toContain(schemas);
      // A session starts turns as its children: it needs the turn's module, and its own.
      const session = await probe.startRun('sessionWorkflow', 'session', probeInputs.sessionWorkflow);
      expect(session).toEqual(expect.arrayContaining(['./workflows/session/session-workflow.ts', './workflows/turn/turn-workflow.ts']));
      expect(session).not.toContain('./contracts/job-spec.ts');
    } finally {
      await probe.destroy();
    }
  }, 60_000);

  it('starts runs whose schemas work on the shared, frozen zod (parse, refuse, report)', async () => {
    const probe = await workflowRunProbe(bundle);
    try {
      // A run's first activation evaluates the contracts' schemas (z.object, enums, refinements) against the frozen zod, and parses with them:
      // a turn whose input needs the schema (settings from before a default), and a session.
      const { approval: _older, ...olderSettings } = probeInputs.turnWorkflow.settings;
      await probe.startRun('turnWorkflow', 'first', { ...probeInputs.turnWorkflow, settings: olderSettings });
      await probe.startRun('sessionWorkflow', 'second', probeInputs.sessionWorkflow);
      // Validation in the shared context: zod's global config (locale) was set before the freeze.
      const sharedZod = probe.sharedModule<{ sharedZod: typeof z }>('./workflows/preload/shared-zod.ts')!.sharedZod;
      const schema = sharedZod.object({ text: sharedZod.string().min(1), n: sharedZod.number().int() });
      expect(schema.parse({ text: 'hi', n: 2 })).toEqual({ text: 'hi', n: 2 });
      const refused = schema.safeParse({ text: '', n: 1.5 });
      expect(refused.success).toBe(false);
      expect(refused.error?.issues.map((i) => i.path.join('.'))).toEqual(['text', 'n']);
      expect(refused.error?.issues[0]?.message).toMatch(/at least 1|>=1/i);
    } finally {
      await probe.destroy();
    }
  }, 60_000);
});
