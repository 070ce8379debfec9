import os from 'node:os';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { buildWorkflowBundle, WORKFLOWS_ENTRY } from '../services/worker/workflow-bundle';
import { workflowRunProbe } from '../services/worker/workflow-run-probe';
import { median, ms, nowMs } from './stats';

/**
 * What starting one workflow run costs the worker: creating the run in the worker's shared V8
 * context, which evaluates every module of the workflow bundle that is not shared (the contracts'
 * schemas, and zod unless it is preloaded). Every prompt starts a turn workflow, so this is paid on
 * every turn, on the path to the first delta. Measured for strand's bundle (zod preloaded, the
 * workflows importing only the contracts they use) against the same entry bundled the SDK's default
 * way (nothing preloaded) in the same run. Run: `npm run bench:workflow-start` (BENCH_RUNS,
 * BENCH_STARTS). Prints one JSON document.
 */
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const STARTS = Number(process.env.BENCH_STARTS ?? 40);
const progress = (what: string) => console.error(`[bench] ${what}`);
const quiet = { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: (m: string) => console.error(m), log: () => undefined };

/** The modules of ours a bundle evaluates per run (webpack names them by path). */
const contractModules = (bundle: WorkflowBundleWithSourceMap) => [...new Set([...bundle.code.matchAll(/"\.\/contracts\/[^"]+\.ts"/g)].map((m) => m[0].slice(1, -1)))].sort();

/** Median milliseconds to create a run of `workflowType`, per run of STARTS creations. */
async function startCosts(bundle: WorkflowBundleWithSourceMap, workflowType: string): Promise<number[]> {
  const probe = await workflowRunProbe(bundle);
  const perRun: number[] = [];
  try {
    for (let r = 0; r < RUNS; r++) {
      const xs: number[] = [];
      for (let i = 0; i < STARTS; i++) {
        const t0 = nowMs();
        await probe.startRun(workflowType, `run-${r}-${i}`);
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
  progress('bundling the workflows twice (SDK default, strand)');
  const baseline = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_ENTRY, logger: quiet });
  const strand = await buildWorkflowBundle();
  const result: Record<string, unknown> = {};
  for (const workflowType of ['turnWorkflow', 'sessionWorkflow']) {
    progress(`${workflowType}: ${RUNS} runs × ${STARTS} starts per bundle`);
    const base = await startCosts(baseline, workflowType);
    const ours = await startCosts(strand, workflowType);
    result[workflowType] = {
      baseline_sdk_default_ms: ms(median(base)),
      strand_ms: ms(median(ours)),
      saved_ms: ms(median(base) - median(ours)),
      baseline_per_run_ms: base.map(ms),
      strand_per_run_ms: ours.map(ms),
    };
  }
  console.log(
    JSON.stringify(
      {
        bench: 'workflow-start',
        measured: 'ReusableVMWorkflowCreator.createWorkflow (module evaluation of a new run), median per run, median of runs',
        runs: RUNS,
        starts_per_run: STARTS,
        ...result,
        contract_modules_per_run: { baseline: contractModules(baseline), strand: contractModules(strand) },
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
