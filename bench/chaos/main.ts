import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFakeOpenAIServer } from '../../test/harness/fake-openai-server';
import { REPO_ROOT } from '../../infra/stack/stack-config';
import { writeReport } from '../report/write-report';
import { startChaosStack, type ChaosStack } from './chaos-stack';
import { chaosConfigFromEnv, seededRandom } from './config';
import { ChaosProvider } from './provider-script';
import { chaosChart, chaosMarkdown, summarize } from './summary';
import { localTarget } from './target';
import { runTrial, type TrialRecord } from './trial';

/**
 * `npm run chaos`: strand's durability promise under kill -9 of every process and under outages of
 * Temporal and NATS, N trials per scenario on a real local stack with an OpenAI-format provider that
 * streams slowly. Writes bench/results/chaos.json, chaos.md and chaos.png, prints the table, and
 * exits 1 when any trial failed a check. What it checks: bench/README.md, "chaos".
 */
const progress = (what: string) => console.error(`[chaos] ${what}`);

/**
 * The code a scenario's stack ran: HEAD and how many of the services' files differed from it. Others
 * may commit while a long run goes on; each stack loads the tree as it is when it starts.
 */
function sourceVersion(): string {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    const changed = git('status', '--porcelain', '--', 'activities', 'workflows', 'services', 'contracts', 'infra').split('\n').filter(Boolean).length;
    return `${git('rev-parse', '--short', 'HEAD')}${changed ? ` +${changed} uncommitted` : ''}`;
  } catch (err) {
    return `unknown (${(err as Error).message.split('\n')[0]})`;
  }
}

async function main(): Promise<number> {
  const config = chaosConfigFromEnv();
  const provider = new ChaosProvider();
  const fake = await startFakeOpenAIServer({ respond: provider.respond });
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-chaos-ws-'));
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-chaos-logs-'));
  const random = seededRandom(config.seed);
  const records: TrialRecord[] = [];
  const errors = new Map<string, string>();
  const sources = new Map<string, string>();
  let current: ChaosStack | undefined;
  const interrupted = async () => {
    progress('interrupted: stopping the stack');
    await current?.teardown().catch(() => undefined);
    await fake.close();
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  progress(`${config.scenarios.length} scenarios × ${config.trials} trials, seed ${config.seed}, outages ${config.outageMs / 1000} s; service logs in ${logDir}`);
  try {
    for (const scenario of config.scenarios) {
      sources.set(scenario.id, sourceVersion());
      progress(`${scenario.id}: starting the stack (code ${sources.get(scenario.id)})`);
      try {
        current = await startChaosStack(fake.baseURL, path.join(logDir, `${scenario.id}.log`), config.code, scenario.failover ? { worker: 2, gateway: 2 } : undefined);
      } catch (err) {
        errors.set(scenario.id, `the stack did not start: ${(err as Error).message.split('\n')[0]}`);
        progress(`${scenario.id}: ${errors.get(scenario.id)}`);
        continue;
      }
      try {
        for (let i = 1; i <= config.trials; i++) {
          const record = await runTrial({ target: localTarget(current, config), provider, scenario, config, random, workspace, index: i });
          records.push(record);
          const r = record.recovery;
          progress(
            `${scenario.id} #${i}: ${record.verdict.passed ? 'passed' : 'FAILED'} (${record.fault_point ?? '-'}; silence ${r.silence ?? '-'} ms, ` +
              `fault → deltas again ${r.faultToResume ?? '-'} ms, → finished ${r.faultToFinished ?? '-'} ms)` +
              (record.verdict.passed ? '' : `: ${record.verdict.problems.join('; ')}`),
          );
          const restarted = await current.ensureUp();
          if (restarted.length) record.verdict.problems.push(`${restarted.join(', ')} was still down after the trial and was started again`);
        }
      } catch (err) {
        errors.set(scenario.id, `stopped after ${records.filter((r) => r.scenario === scenario.id).length} trials: ${(err as Error).message.split('\n')[0]}`);
        progress(`${scenario.id}: ${errors.get(scenario.id)}`);
      } finally {
        await current.teardown();
        current = undefined;
      }
    }
  } finally {
    await fake.close();
    fs.rmSync(workspace, { recursive: true, force: true });
  }

  const outageS = config.outageMs / 1000;
  const rows = summarize(config.scenarios, records, config.trials, outageS, errors).map((r) => ({ ...r, code: sources.get(r.scenario) }));
  const codes = [...new Set(sources.values())];
  const when = new Date().toISOString();
  const setup = `${config.trials} trials per scenario, services ${config.code === 'built' ? 'built (dist/services)' : 'from source (tsx)'}, seed ${config.seed}, restart ${config.restartDelayMs} ms after a kill, outages ${outageS} s, ${config.words}-word answers at one word per ${config.frameDelayMs} ms`;
  const header = [`# strand chaos — ${when}`, '', `${setup}; ${os.cpus().length} cores, Node ${process.version}. Code: ${codes.join(', ') || 'none ran'}${codes.length > 1 ? ' (it changed during the run: chaos.json names the code of each scenario)' : ''}. Silences are seconds at the SSE client (see bench/README.md, "chaos").`].join('\n');
  const markdown = chaosMarkdown(rows, records, header);
  const written = await writeReport({
    dir: config.resultsDir,
    name: 'chaos',
    json: {
      generated_at: when,
      config: { trials: config.trials, code: config.code, seed: config.seed, outage_s: outageS, restart_delay_ms: config.restartDelayMs, words: config.words, frame_delay_ms: config.frameDelayMs, tool_s: config.toolTicks / 2, quick: config.quick },
      machine: { cores: os.cpus().length, node: process.version },
      scenarios: rows,
      provider_anomalies: provider.anomalies,
      service_logs: logDir,
      trials: records,
    },
    markdown,
    chart: chaosChart(config.scenarios, records, setup),
  });
  console.log(markdown);
  progress(`wrote ${[written.json, written.markdown, written.png].filter(Boolean).join(', ')}`);
  if (provider.anomalies.length) progress(`provider anomalies: ${provider.anomalies.join('; ')}`);
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
