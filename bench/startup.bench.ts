import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureServicesBuilt } from '../infra/build/build-freshness';
import { ManagedProcess } from '../infra/stack/managed-process';
import { startStack, type Stack } from '../infra/stack/stack';
import { type ServiceCode } from '../infra/stack/stack-config';
import { instanceSpec, serviceSpecs } from '../infra/stack/stack-specs';
import { writeReport } from './report/write-report';
import { startupMarkdown, type StartupCase } from './startup/startup-report';
import { processCpuMs } from './startup/process-cpu';
import { gatewayKillToHealthy } from './startup/supervised-restart';
import { median, ms, nowMs } from './stats';

/**
 * How long each of strand's services takes from process start to ready (its `[name] ready` line, the
 * line `npm start` and its supervisor wait for), from source (node --import tsx, compiling TypeScript at
 * every start) and built (dist/services, infra/build/services-build.ts), exactly as the stack starts
 * them (stack-specs.ts, with service-entry and the runner's link). One stack runs nats-server, Temporal
 * and the other services; the service measured is stopped, started RUNS times in each way (alternating,
 * so the machine's load drifts over both alike) and stopped again after each start, then restored.
 * The worker is also started built with an empty workflow-bundle cache: what its first start after a
 * change to a workflow costs (the Temporal SDK bundles the workflows with webpack). Last, on a supervised
 * stack each way, a gateway killed with SIGKILL → its /healthz answering again (supervised-restart.ts).
 * The machine may be shared: with the wall times go the CPU time each start used up to its ready line
 * (process-cpu.ts, every thread of it), which load barely moves, and each median's ratio to the built
 * store's in the same run, which load moves far less than the times themselves.
 * Run: `npm run bench:startup` (BENCH_RUNS, default 5). Prints JSON; writes bench/results/startup.json and .md.
 */
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const TIMEOUT_MS = 120_000;
const READY = /^\[(store|worker|gateway)\] ready\b/;
const progress = (what: string) => console.error(`[bench] ${what}`);

const CASES: StartupCase[] = [
  { service: 'store', code: 'source' },
  { service: 'store', code: 'built' },
  { service: 'gateway', code: 'source' },
  { service: 'gateway', code: 'built' },
  { service: 'worker', code: 'source' },
  { service: 'worker', code: 'built' },
  { service: 'worker', code: 'built', coldBundleCache: true },
];

/** One start of `c`: milliseconds from spawn to its ready line, and the CPU it used until then; the process is stopped again. */
async function startOnce(stack: Stack, c: StartupCase, scratch: string): Promise<{ wall: number; cpu?: number }> {
  const config = { ...stack.config, code: c.code as ServiceCode };
  const spec = instanceSpec(await serviceSpecs(config), c.service);
  const env = { ...spec.env };
  if (c.coldBundleCache) env.STRAND_WORKFLOW_BUNDLE_CACHE = fs.mkdtempSync(path.join(scratch, 'bundle-cache-'));
  const tail: string[] = [];
  const proc = new ManagedProcess({ ...spec, env }, (_name, line) => tail.push(line));
  const t0 = nowMs();
  proc.start();
  try {
    await proc.waitForLine(READY, TIMEOUT_MS);
    const wall = nowMs() - t0;
    const cpu = processCpuMs(proc.pid);
    return cpu === undefined ? { wall } : { wall, cpu };
  } finally {
    await proc.stop(5_000);
  }
}

async function main(): Promise<void> {
  const loadBefore = os.loadavg();
  const built = await ensureServicesBuilt({ log: progress });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-bench-startup-'));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-bench-startup-scratch-'));
  const stack = await startStack(
    { dataDir, host: '127.0.0.1', ports: { temporal: 0, temporalUi: 0, nats: 0, gateway: 0 }, ui: false, serviceEnv: { STRAND_LOG_LEVEL: 'warn' }, code: 'built' },
    () => undefined,
  );
  const samples = new Map<StartupCase, number[]>(CASES.map((c) => [c, []]));
  const cpuSamples = new Map<StartupCase, number[]>(CASES.map((c) => [c, []]));
  try {
    for (const service of ['store', 'gateway', 'worker'] as const) {
      const cases = CASES.filter((c) => c.service === service);
      await stack.process(service).stop();
      // One start of each case first, not counted: the OS's file cache holds both ways alike.
      for (const c of cases) await startOnce(stack, c, scratch);
      for (let run = 1; run <= RUNS; run++) {
        for (const c of cases) {
          const took = await startOnce(stack, c, scratch);
          samples.get(c)!.push(took.wall);
          if (took.cpu !== undefined) cpuSamples.get(c)!.push(took.cpu);
          progress(`${service} ${label(c)} run ${run}: ${Math.round(took.wall)} ms (CPU ${took.cpu ?? '?'} ms, load ${os.loadavg()[0]!.toFixed(1)})`);
        }
      }
      await stack.restart(service);
    }
  } finally {
    await stack.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  // What a client sees of a crashed gateway under `npm start`'s supervisor, each way.
  const gatewayKill = [];
  for (const code of ['source', 'built'] as const) {
    gatewayKill.push(await gatewayKillToHealthy(code, RUNS));
    progress(`gateway SIGKILL → healthy again (${code}): ${gatewayKill.at(-1)!.runs_ms.map(Math.round).join(', ')} ms`);
  }
  const storeBuilt = median(samples.get(CASES.find((c) => c.service === 'store' && c.code === 'built')!)!);
  const results = CASES.map((c) => {
    const xs = samples.get(c)!;
    const cpu = cpuSamples.get(c)!;
    return {
      service: c.service,
      code: label(c),
      median_ms: ms(median(xs)),
      min_ms: ms(Math.min(...xs)),
      max_ms: ms(Math.max(...xs)),
      runs_ms: xs.map(ms),
      ...(cpu.length ? { cpu_median_ms: ms(median(cpu)), cpu_runs_ms: cpu } : {}),
      x_store_built: Math.round((median(xs) / storeBuilt) * 100) / 100,
    };
  });
  const json = {
    meta: {
      runs: RUNS,
      cores: os.cpus().length,
      node: process.version,
      at: new Date().toISOString(),
      // The machine is shared: its load over the last minute, before and after the run.
      loadavg_1m_before: Math.round(loadBefore[0]! * 100) / 100,
      loadavg_1m_after: Math.round(os.loadavg()[0]! * 100) / 100,
      build_was_stale: built.built,
    },
    results,
    gateway_sigkill_to_healthy: gatewayKill,
  };
  console.log(JSON.stringify(json, null, 2));
  await writeReport({ dir: path.join(__dirname, 'results'), name: 'startup', json, markdown: startupMarkdown(json) });
}

const label = (c: StartupCase) => (c.coldBundleCache ? `${c.code}, workflow bundle cache empty` : c.code);

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
