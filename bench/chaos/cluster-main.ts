import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findDockerTools } from '../../infra/compose/docker-tools';
import { createWorkspace } from '../../infra/compose/e2e-workspace';
import { startFakeOpenAIServer } from '../../test/harness/fake-openai-server';
import { writeReport } from '../report/write-report';
import { pickClusterScenarios } from './cluster-scenarios';
import { hostGatewayAddress, startClusterStack, type ClusterStack } from './cluster-stack';
import { chaosConfigFromEnv, seededRandom } from './config';
import { ChaosProvider } from './provider-script';
import { chaosChart, chaosMarkdown, summarize } from './summary';
import { runTrial, type TrialRecord } from './trial';

/**
 * `npm run chaos:cluster`: the chaos trials (trial.ts: the same turn, fault point, checks and figures
 * as `npm run chaos`) against the clustered compose stack (docker-compose.cluster.yml), through its
 * load balancer, with the faults of cluster-scenarios.ts: NATS nodes killed, stopped and cut off, a
 * gateway, a worker, Temporal's history and matching services killed. One stack for every scenario;
 * after each trial whatever is down is started again and the cluster must be whole before the next.
 * Writes bench/results/chaos-cluster.{json,md,png}; exits 1 when a trial failed a check.
 * CHAOS_TRIALS (default 10), CHAOS_SCENARIOS (ids or components of cluster-scenarios.ts), CHAOS_OUTAGE_S
 * (the partition's length, 30), CHAOS_SEED, CHAOS_RESTART_DELAY_MS (after a `docker stop`, 500).
 */
const progress = (what: string) => console.error(`[chaos:cluster] ${what}`);

async function main(): Promise<number> {
  const env = { ...process.env, CHAOS_SCENARIOS: '', CHAOS_TRIALS: process.env.CHAOS_TRIALS || '10' };
  const config = chaosConfigFromEnv(env);
  const scenarios = pickClusterScenarios(process.env.CHAOS_SCENARIOS);
  const found = await findDockerTools();
  if (!found.ok) throw new Error(`no Docker to run the cluster on: ${found.reason}`);
  const { tools } = found;
  const provider = new ChaosProvider();
  // The workers run in containers: the provider listens where they reach the host.
  const fake = await startFakeOpenAIServer({ respond: provider.respond, host: await hostGatewayAddress(tools) });
  const providerPort = Number(new URL(fake.url).port);
  const ws = createWorkspace();
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-chaos-cluster-logs-'));
  const random = seededRandom(config.seed);
  const records: TrialRecord[] = [];
  const errors = new Map<string, string>();
  let stack: ClusterStack | undefined;
  const interrupted = async () => {
    progress('interrupted: removing the compose project');
    await stack?.teardown().catch(() => undefined);
    await fake.close();
    ws.remove();
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  progress(`${scenarios.length} scenarios × ${config.trials} trials, seed ${config.seed}, partitions ${config.outageMs / 1000} s; ${tools.described}; service logs in ${logDir}`);
  const t0 = performance.now();
  try {
    stack = await startClusterStack({ tools, providerPort, projectsDir: ws.projects, logFile: path.join(logDir, 'cluster.log'), config });
    progress(`cluster up and warmed in ${Math.round((performance.now() - t0) / 1000)} s (${stack.base})`);
    for (const scenario of scenarios) {
      try {
        for (let i = 1; i <= config.trials; i++) {
          const record = await runTrial({ target: stack, provider, scenario, config, random, workspace: ws.project, index: i });
          records.push(record);
          const r = record.recovery;
          progress(
            `${scenario.id} #${i}: ${record.verdict.passed ? 'passed' : 'FAILED'} (${record.fault_point ?? '-'}; silence ${r.silence ?? '-'} ms, ` +
              `fault → deltas again ${r.faultToResume ?? '-'} ms, → finished ${r.faultToFinished ?? '-'} ms)` +
              (record.verdict.passed ? '' : `: ${record.verdict.problems.join('; ')}`),
          );
          const repaired = await stack.ensureUp();
          if (repaired.length) record.verdict.problems.push(`${repaired.join(', ')} was still down or cut off after the trial and was brought back`);
        }
      } catch (err) {
        errors.set(scenario.id, `stopped after ${records.filter((r) => r.scenario === scenario.id).length} trials: ${(err as Error).message.split('\n')[0]}`);
        progress(`${scenario.id}: ${errors.get(scenario.id)}`);
      }
    }
  } finally {
    await stack?.teardown().catch((err: unknown) => progress(`teardown: ${(err as Error).message}`));
    await fake.close();
    ws.remove();
  }

  const outageS = config.outageMs / 1000;
  const rows = summarize(scenarios, records, config.trials, outageS, errors);
  const when = new Date().toISOString();
  const setup = `${config.trials} trials per scenario, seed ${config.seed}, partitions ${outageS} s, ${config.words}-word answers at one word per ${config.frameDelayMs} ms, through HAProxy to 2 gateways`;
  const header = `# strand chaos on the clustered compose stack — ${when}\n\n${setup}; ${os.cpus().length} cores, Node ${process.version}. Silences are seconds at the SSE client (see bench/README.md, "chaos on the cluster").`;
  const markdown = chaosMarkdown(rows, records, header);
  const written = await writeReport({
    dir: config.resultsDir,
    name: 'chaos-cluster',
    json: { generated_at: when, config: { trials: config.trials, seed: config.seed, outage_s: outageS, words: config.words, frame_delay_ms: config.frameDelayMs }, machine: { cores: os.cpus().length, node: process.version }, scenarios: rows, provider_anomalies: provider.anomalies, service_logs: logDir, trials: records },
    markdown,
    chart: chaosChart(scenarios, records, setup),
  });
  console.log(markdown);
  progress(`wrote ${[written.json, written.markdown, written.png].filter(Boolean).join(', ')}`);
  const failed = records.filter((r) => !r.verdict.passed).length;
  const missing = rows.reduce((n, r) => n + r.planned - r.trials, 0);
  return failed > 0 || missing > 0 || provider.anomalies.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(2);
  },
);
