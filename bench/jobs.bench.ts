import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { gitOk } from '../activities/job-workspace/git';
import { startFakeOpenAIServer } from '../test/harness/fake-openai-server';
import { startTestStack, type TestStack } from '../test/harness/stack-fixture';
import { medianOfRuns } from './capacity/median-of-runs';
import { treeCpuMs } from './capacity/process-cost';
import { intFrom } from './env-int';
import { JobTurnProvider } from './jobs/job-turn-provider';
import { runBaseline, runJobs, type PhaseResult } from './jobs/phases';
import { jobsMarkdown, phaseFigures, PROCESSES, type CpuMs, type PhaseFigures } from './jobs/summary';
import { writeReport } from './report/write-report';

/**
 * Many queued jobs (docs/jobs.md) on a real stack — nats-server, the Temporal dev server, the store,
 * the gateway and two workers — with the fake OpenAI-format provider: BENCH_JOBS jobs submitted at
 * once over `POST /api/jobs` on one git repository, each work turn writing a file, running a short
 * command and ending. The baseline, in the same run on the same stack: the same turns as plain
 * session prompts. Figures per phase: wall time, units per minute, duration and queueing p50/p99,
 * CPU ms per unit of each process, Temporal actions and history events per unit; every job must end
 * `succeeded` with its file on a verified branch (the bench throws otherwise). Median of BENCH_RUNS
 * runs. Writes bench/results/jobs.json and jobs.md. Run: `npm run bench:jobs`.
 */
const JOBS = intFrom(process.env, 'BENCH_JOBS', 50, 1);
const RUNS = intFrom(process.env, 'BENCH_RUNS', 1, 1);
const IDLE_SECONDS = intFrom(process.env, 'BENCH_IDLE_SECONDS', 10, 1);
const RESULTS_DIR = process.env.BENCH_RESULTS_DIR ?? path.join(__dirname, 'results');
const progress = (what: string) => console.error(`[bench:jobs ${new Date().toISOString().slice(11, 19)}] ${what}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const loadavg = () => os.loadavg().map((x) => +x.toFixed(2));

function cpuNow(stack: TestStack): CpuMs {
  return Object.fromEntries(PROCESSES.map((p) => [p, treeCpuMs(stack.process(p).pid!)])) as CpuMs;
}

async function idleRate(stack: TestStack): Promise<CpuMs> {
  const before = cpuNow(stack);
  await sleep(IDLE_SECONDS * 1000);
  const after = cpuNow(stack);
  return Object.fromEntries(PROCESSES.map((p) => [p, +((after[p] - before[p]) / IDLE_SECONDS).toFixed(2)])) as CpuMs;
}

async function measured(stack: TestStack, idle: CpuMs, phase: () => Promise<PhaseResult>): Promise<PhaseFigures> {
  const before = cpuNow(stack);
  const result = await phase();
  const after = cpuNow(stack);
  return phaseFigures(result, before, after, idle);
}

async function makeRepository(dir: string): Promise<void> {
  fs.mkdirSync(dir);
  await gitOk(dir, ['init', '--quiet', '--initial-branch', 'main']);
  fs.writeFileSync(path.join(dir, 'README.md'), '# bench project\n');
  await gitOk(dir, ['add', '-A']);
  await gitOk(dir, ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', 'commit', '--quiet', '-m', 'first']);
}

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-jobs-bench-'));
  const repo = path.join(tmp, 'repo');
  await makeRepository(repo);
  const provider = new JobTurnProvider();
  const fake = await startFakeOpenAIServer({ respond: provider.respond });
  progress(`starting the stack (two workers); ${JOBS} jobs, ${RUNS} run(s)`);
  const stack = await startTestStack(
    { OPENAI_API_KEY: 'bench', OPENAI_BASE_URL: fake.baseURL, STRAND_JOBS_DIR: path.join(tmp, 'jobs'), STRAND_RATE_LIMIT: '100000' },
    { instances: { worker: 2 } },
  );
  const connection = await Connection.connect({ address: stack.urls.temporal });
  const client = new Client({ connection });
  const base = stack.urls.gateway;
  const loadBefore = loadavg();
  try {
    // One unmeasured job and prompt: the workers load the job's code paths and JIT before the runs.
    progress('warm-up: one job, one prompt');
    await runJobs(base, client, repo, 'warm', 1);
    await runBaseline(base, client, 'warm-s', 1);
    progress(`idle CPU over ${IDLE_SECONDS} s`);
    const idle = await idleRate(stack);
    const runs: { jobs: PhaseFigures; baseline: PhaseFigures }[] = [];
    for (let r = 1; r <= RUNS; r++) {
      progress(`run ${r}/${RUNS}: baseline, ${JOBS} session prompts at once`);
      const baseline = await measured(stack, idle, () => runBaseline(base, client, `r${r}-s`, JOBS));
      progress(`run ${r}/${RUNS}: ${JOBS} jobs at once (baseline: ${baseline.wall_s} s)`);
      const jobs = await measured(stack, idle, () => runJobs(base, client, repo, `r${r}-j`, JOBS));
      progress(`run ${r}/${RUNS}: jobs ${jobs.wall_s} s, ${jobs.per_minute}/min`);
      runs.push({ jobs, baseline });
    }
    if (provider.anomalies.length > 0) throw new Error(`the provider saw what was not scripted:\n${provider.anomalies.join('\n')}`);
    const median = medianOfRuns(runs as never) as unknown as { jobs: PhaseFigures; baseline: PhaseFigures };
    const out = {
      bench: 'jobs',
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, mem_gib: +(os.totalmem() / 2 ** 30).toFixed(1) },
      load: { before: loadBefore, after: loadavg() },
      jobs: JOBS,
      runs: RUNS,
      workers: 2,
      shape: 'work turn: step 1 write_file, step 2 shell_exec `wc -l`, step 3 a sentence; fake OpenAI-format provider, no delay',
      provider_requests: provider.requests,
      idle_cpu_ms_per_s: idle,
      jobs_phase: median.jobs,
      baseline: median.baseline,
      per_run: runs,
    };
    console.log(JSON.stringify(out, null, 2));
    const written = await writeReport({ dir: RESULTS_DIR, name: 'jobs', json: out, markdown: jobsMarkdown({ ...out, jobs_phase: median.jobs, baseline: median.baseline }) });
    progress(`wrote ${written.json} and ${written.markdown}`);
  } finally {
    await connection.close();
    await stack.teardown();
    await fake.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
