import os from 'node:os';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import path from 'node:path';
import { buildWorkflowBundle, PRELOADED_WORKFLOW_MODULES } from '../services/worker/workflow-bundle';
import { probeInputs, workflowRunProbe } from '../services/worker/workflow-run-probe';
import { median, ms, nowMs } from './stats';

/**
 * What starting one workflow run costs the worker: creating the run in the worker's shared V8
 * context and its first activation, which evaluates the modules of the bundle the run needs and that
 * are not shared (the contracts' schemas, and zod unless it is preloaded). Every prompt starts a turn
 * workflow, so this is paid on every turn, on the path to the first delta. Measured in the same run
 * for three bundles: strand's (zod preloaded, each workflow type's modules required when a run of it
 * starts), the entry that imports every workflow at once with zod preloaded (what every run paid
 * before: a turn evaluated the job spec's schemas too), and that entry bundled the SDK's default way
 * (nothing preloaded). Run: `npm run bench:workflow-start` (BENCH_RUNS, BENCH_STARTS). Prints one
 * JSON document.
 */
/** The entry as it was: every workflow type imported at once. */
const EAGER_ENTRY = path.resolve(__dirname, 'workflow-start/eager-entry.ts');
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const STARTS = Number(process.env.BENCH_STARTS ?? 40);
const progress = (what: string) => console.error(`[bench] ${what}`);
const quiet = { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: (m: string) => console.error(m), log: () => undefined };

/** The modules of ours a bundle evaluates per run (webpack names them by path). */
const contractModules = (bundle: WorkflowBundleWithSourceMap) => [...new Set([...bundle.code.matchAll(/"\.\/contracts\/[^"]+\.ts"/g)].map((m) => m[0].slice(1, -1)))].sort();

/** Median milliseconds to create a run of `workflowType`, per run of STARTS creations. */
async function startCosts(bundle: WorkflowBundleWithSourceMap, workflowType: keyof typeof probeInputs): Promise<number[]> {
  const probe = await workflowRunProbe(bundle);
  const perRun: number[] = [];
  try {
    for (let r = 0; r < RUNS; r++) {
      const xs: number[] = [];
      for (let i = 0; i < STARTS; i++) {
        const t0 = nowMs();
        await probe.startRun(workflowType, `run-${r}-${i}`, probeInputs[workflowType]);
        xs.push(nowMs() - t0);
      }
      perRun.push(median(xs));
    }
  } finally {
    await probe.destroy();
  }
  return perRun;
}

async function main() {
  progress('bundling the workflows three times (SDK default, every workflow at once, strand)');
  const baseline = await bundleWorkflowCode({ workflowsPath: EAGER_ENTRY, logger: quiet });
  const eager = await bundleWorkflowCode({ workflowsPath: EAGER_ENTRY, preloadModules: PRELOADED_WORKFLOW_MODULES, logger: quiet });
  const strand = await buildWorkflowBundle();
  const result: Record<string, unknown> = {};
  for (const workflowType of ['turnWorkflow', 'sessionWorkflow'] as const) {
    progress(`${workflowType}: ${RUNS} runs × ${STARTS} starts per bundle`);
    const base = await startCosts(baseline, workflowType);
    const all = await startCosts(eager, workflowType);
    const ours = await startCosts(strand, workflowType);
    result[workflowType] = {
      baseline_sdk_default_ms: ms(median(base)),
      every_workflow_at_once_ms: ms(median(all)),
      strand_ms: ms(median(ours)),
      saved_ms: ms(median(base) - median(ours)),
      baseline_per_run_ms: base.map(ms),
      every_workflow_at_once_per_run_ms: all.map(ms),
      strand_per_run_ms: ours.map(ms),
    };
  }
  console.log(
    JSON.stringify(
      {
        bench: 'workflow-start',
        measured: 'a new run created in the shared V8 context and its first activation (module evaluation, input parse, first commands), median per run, median of runs',
        runs: RUNS,
        starts_per_run: STARTS,
        ...result,
        contract_modules_in_bundle: contractModules(strand),
        cores: os.cpus().length,
      },
      null,
      2,
    ),
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
