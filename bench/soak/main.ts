import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { REPO_ROOT } from '../../infra/stack/stack-config';
import { writeReport } from '../report/write-report';
import { PROTOCOLS, protocolOf, soakConfigFromEnv, type Protocol, type SoakConfig } from './config';
import { DeltaLatency } from './delta-latency';
import { EdnSoakSession } from './edn-session';
import { sampleRss, stackProcesses, type RssSample, type TrackedProcess } from './rss';
import { runSessionLoop } from './session-loop';
import { SoakMetrics } from './soak-metrics';
import { latencyFigures, rssGrowth, soakChart, soakMarkdown, type SoakSummary } from './soak-report';
import { startSoakStack, type SoakStack } from './soak-stack';
import { SseSoakSession } from './sse-session';
import { wallNow, type ClientHooks, type SoakSession } from './turn-result';
import { WsSoakSession } from './ws-session';

/**
 * `npm run soak`: SOAK_SESSIONS sessions (default 50) split over SSE, WebSocket and EDN, each looping
 * prompt → turn end → prompt, every turn one read_file call and a few dozen words, for SOAK_DURATION_S
 * (default 600) after a warm-up, on a real local stack with two workers. Writes
 * bench/results/soak.{json,md,png}; exits 1 when there was any error or one of our processes' RSS grew
 * by the bound or more. What it measures and why the bound: bench/README.md, "soak".
 */
const progress = (what: string) => console.error(`[soak] ${new Date().toISOString().slice(11, 19)} ${what}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function sourceVersion(): string {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    const changed = git('status', '--porcelain', '--', 'activities', 'workflows', 'services', 'contracts', 'infra').split('\n').filter(Boolean).length;
    return `${git('rev-parse', '--short', 'HEAD')}${changed ? ` +${changed} uncommitted` : ''}`;
  } catch (err) {
    return `unknown (${(err as Error).message.split('\n')[0]})`;
  }
}

/** Opens the sessions a few at a time (each start is a workflow and a store write: a burst of 50 only queues). */
async function openSessions(soak: SoakStack, config: SoakConfig, hooks: ClientHooks, opened: SoakSession[]): Promise<void> {
  const { urls } = soak.stack;
  const tag = Date.now().toString(36);
  const openOne = (i: number, protocol: Protocol): Promise<SoakSession> => {
    if (protocol === 'sse') return SseSoakSession.open(urls.gateway, soak.workspace, hooks);
    if (protocol === 'ws') return WsSoakSession.open(urls.gateway, `soak_${tag}_ws${i}`, soak.workspace, hooks);
    return EdnSoakSession.open(urls.edn, hooks);
  };
  for (let i = 0; i < config.sessions; i += 5) {
    const batch = Array.from({ length: Math.min(5, config.sessions - i) }, (_, k) => i + k);
    opened.push(...(await Promise.all(batch.map((n) => openOne(n, protocolOf(n))))));
  }
}

async function main(): Promise<number> {
  const config = soakConfigFromEnv();
  const code = sourceVersion();
  progress(`${config.sessions} sessions, ${config.warmupS} s warm-up + ${config.durationS} s, RSS every ${config.sampleS} s; code ${code}`);
  const soak = await startSoakStack(config);
  const metrics = new SoakMetrics();
  const deltas = new DeltaLatency();
  const sessions: SoakSession[] = [];
  let stop = false;
  const shutdown = async () => {
    stop = true;
    for (const s of sessions) s.close();
    await deltas.close().catch(() => undefined);
    await soak.stop();
  };
  const interrupted = () => {
    progress('interrupted: stopping the stack');
    void shutdown().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  const samples: RssSample[] = [];
  const turnsPerS: { at: number; turns_per_s: number }[] = [];
  let processes: TrackedProcess[] = [];
  let loops: Promise<number[]> = Promise.resolve([]);
  try {
    progress(`stack up (services log to ${soak.logFile}); opening the sessions`);
    await deltas.listen(soak.stack.urls.nats);
    const hooks: ClientHooks = { onDelta: deltas.clientDelta, onError: metrics.error };
    await openSessions(soak, config, hooks, sessions);
    loops = Promise.all(sessions.map((s) => runSessionLoop(s, metrics, () => stop, config.turnTimeoutMs, config.thinkMs)));
    progress(`${sessions.length} sessions open; warming up ${config.warmupS} s`);
    await sleep(config.warmupS * 1000);

    processes = stackProcesses(soak.stack);
    metrics.startedAt = wallNow();
    deltas.recording = true;
    samples.push(sampleRss(processes, 0));
    progress(`measuring (${metrics.warmupTurns} warm-up turns, ${metrics.errors.length} errors so far)`);
    for (let at = config.sampleS; at <= config.durationS; at += config.sampleS) {
      await sleep(metrics.startedAt + at * 1000 - wallNow());
      samples.push(sampleRss(processes, at));
      const rate = metrics.turnsBetween(at - config.sampleS, at) / config.sampleS;
      turnsPerS.push({ at, turns_per_s: Math.round(rate * 100) / 100 });
      const ours = processes.filter((p) => p.ours).map((p) => `${p.label} ${samples.at(-1)!.mb[p.label] ?? 'gone'}`).join(', ');
      progress(`${at} s: ${rate.toFixed(1)} turns/s, ${metrics.errors.length} errors; RSS MB ${ours}`);
    }
    const lastAt = samples.at(-1)!.at;
    if (lastAt < config.durationS) {
      await sleep(metrics.startedAt + config.durationS * 1000 - wallNow());
      samples.push(sampleRss(processes, config.durationS));
    }
    metrics.endedAt = wallNow();
    deltas.recording = false;
    stop = true;
    progress('measured run over: waiting for the turns in flight');
    await Promise.race([loops, sleep(config.turnTimeoutMs + 10_000)]);
  } finally {
    await shutdown();
  }

  const measuredS = ((metrics.endedAt ?? wallNow()) - (metrics.startedAt ?? wallNow())) / 1000;
  const rss = rssGrowth(processes, samples, config.rssBoundMb);
  const unpaired = deltas.unpaired();
  const summary: SoakSummary = {
    turns: metrics.turnEnds.length,
    turns_per_s: Math.round((metrics.turnEnds.length / measuredS) * 100) / 100,
    turns_by_protocol: metrics.turnsBy,
    first_delta_ms: latencyFigures(metrics.firstDeltaMs),
    first_delta_ms_by_protocol: Object.fromEntries(PROTOCOLS.map((p) => [p, latencyFigures(metrics.firstDeltaBy[p])])) as SoakSummary['first_delta_ms_by_protocol'],
    event_latency_ms: { ...latencyFigures(deltas.samples), mismatched: deltas.mismatched },
    errors: metrics.errors,
    rss,
    passed: metrics.errors.length === 0 && rss.filter((r) => r.ours).every((r) => r.within_bound),
  };
  const when = new Date().toISOString();
  const split = PROTOCOLS.map((p) => `${sessions.filter((s) => s.protocol === p).length} ${p}`).join(', ');
  const think = `think ${config.thinkMs.min / 1000}–${config.thinkMs.max / 1000} s between turns`;
  const setup = `${config.sessions} sessions (${split}), ${think}, ${config.durationS} s after a ${config.warmupS} s warm-up, 2 workers; ${os.cpus().length} cores, Node ${process.version}; code ${code}`;
  const header = [
    `# strand soak — ${when}`,
    '',
    `${setup}. Each turn: a scripted model step with a read_file call, then a ${config.answerWords}-word answer, one delta per ${config.deltaDelayMs} ms. First delta: prompt sent → first delta at the client. Event latency: a delta's envelope ts (worker, before the publish) → client receipt. See bench/README.md, "soak".`,
  ].join('\n');
  const markdown = soakMarkdown(config, summary, header);
  const written = await writeReport({
    dir: config.resultsDir,
    name: 'soak',
    json: {
      generated_at: when,
      config: { sessions: config.sessions, duration_s: config.durationS, warmup_s: config.warmupS, sample_s: config.sampleS, delta_delay_ms: config.deltaDelayMs, answer_words: config.answerWords, think_s: [config.thinkMs.min / 1000, config.thinkMs.max / 1000], rss_bound_mb: config.rssBoundMb, workers: 2 },
      machine: { cores: os.cpus().length, node: process.version, load_avg_1m_end: +os.loadavg()[0]!.toFixed(2) },
      code,
      measured_s: Math.round(measuredS * 10) / 10,
      warmup_turns: metrics.warmupTurns,
      ...summary,
      unpaired_deltas_at_end: unpaired,
      processes: processes.map((p) => ({ label: p.label, pid: p.pid, ours: p.ours, command: p.command.slice(0, 200) })),
      rss_samples: samples,
      turns_per_s_series: turnsPerS,
      service_log: soak.logFile,
    },
    markdown,
    chart: soakChart(samples, turnsPerS, config.durationS, setup),
  });
  console.log(markdown);
  progress(`wrote ${[written.json, written.markdown, written.png].filter(Boolean).join(', ')}`);
  return summary.passed ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(2);
  },
);
