// The project resolves modules the CommonJS way, which does not read vega-lite's `exports`: its types by path.
import type { TopLevelSpec } from 'vega-lite/build/index';
import { markdownTable } from '../report/markdown-table';
import { percentile } from '../stats';
import type { TrialScenario } from './target';
import type { TrialRecord } from './trial';

/** One scenario's row of chaos.md (and of chaos.json's `scenarios`). */
export interface ScenarioSummary {
  scenario: string;
  fault: string;
  planned: number;
  trials: number;
  passed: number;
  finished: number;
  stored_once: number;
  client_exact: number;
  duplicates: number;
  lost_words: number;
  extra_words: number;
  next_prompt: number;
  /** Client silence around the fault, seconds. */
  silence_s: { p50?: number; p99?: number; max?: number };
  /** From the fault to the delta that ended the silence, seconds. */
  fault_to_resume_s: { p50?: number; max?: number };
  /** From the fault to the faulted turn's end at the client, seconds. */
  fault_to_finished_s: { p50?: number; max?: number };
  /** How long the faulted process took to be ready again once started, seconds. */
  restart_s: { p50?: number; max?: number };
  error?: string;
}

const seconds = (ms: number | undefined) => (ms === undefined || Number.isNaN(ms) ? undefined : Math.round(ms) / 1000);
const defined = (xs: (number | undefined)[]) => xs.filter((x): x is number => x !== undefined);
const spread = (xs: number[]) => ({ p50: seconds(percentile(xs, 50)), p99: seconds(percentile(xs, 99)), max: seconds(xs.length ? Math.max(...xs) : undefined) });
const count = (records: TrialRecord[], f: (r: TrialRecord) => boolean) => records.filter(f).length;

function describeFault(s: TrialScenario, outageS: number): string {
  if (s.describe) return s.describe;
  if (s.fault === 'none') return `no fault (control), ${s.mode}`;
  if (s.fault === 'outage') return `${s.component} down ${outageS} s mid-stream`;
  if (s.fault === 'rolling') return `rolling restart of both workers (SIGTERM, start, then the other) mid-${s.mode}`;
  if (s.fault === 'stack') return `the whole stack stopped (SIGTERM, in order) and started again mid-${s.mode}`;
  const how = s.fault === 'stop' ? 'SIGTERM' : 'kill -9';
  if (s.failover && s.component === 'gateway') return `${how} the gateway the client follows (one of two; it goes to the other) mid-${s.mode}, then start it`;
  if (s.failover) return `${how} the worker running the ${s.mode === 'tool' ? 'tool' : 'step'} (one of two) mid-${s.mode}`;
  if (s.fault === 'stop') return `SIGTERM ${s.component} mid-${s.mode}, then start it`;
  return `kill -9 ${s.component} mid-${s.mode}`;
}

export function summarize(scenarios: TrialScenario[], records: TrialRecord[], planned: number, outageS: number, errors: Map<string, string>): ScenarioSummary[] {
  return scenarios.map((s) => {
    const rs = records.filter((r) => r.scenario === s.id);
    const silence = spread(defined(rs.map((r) => r.recovery.silence)));
    const resume = spread(defined(rs.map((r) => r.recovery.faultToResume)));
    const finished = spread(defined(rs.map((r) => r.recovery.faultToFinished)));
    const restart = spread(defined(rs.map((r) => r.fault?.restart_ms)));
    return {
      scenario: s.id,
      fault: describeFault(s, outageS),
      planned,
      trials: rs.length,
      passed: count(rs, (r) => r.verdict.passed),
      finished: count(rs, (r) => r.verdict.finished),
      stored_once: count(rs, (r) => r.verdict.storedOnce),
      client_exact: count(rs, (r) => r.verdict.clientExact),
      duplicates: rs.reduce((n, r) => n + r.verdict.duplicates, 0),
      lost_words: rs.reduce((n, r) => n + r.verdict.lostWords, 0),
      extra_words: rs.reduce((n, r) => n + r.verdict.extraWords, 0),
      next_prompt: count(rs, (r) => r.verdict.nextPrompt),
      silence_s: silence,
      fault_to_resume_s: { p50: resume.p50, max: resume.max },
      fault_to_finished_s: { p50: finished.p50, max: finished.max },
      restart_s: { p50: restart.p50, max: restart.max },
      ...(errors.has(s.id) ? { error: errors.get(s.id) } : {}),
    };
  });
}

const frac = (n: number, of: number) => `${n}/${of}`;
const sec = (x: number | undefined) => (x === undefined ? '—' : x.toFixed(x < 1 ? 2 : 1));

/** The markdown table of chaos.md: one row per scenario, then each failed trial's problems. */
export function chaosMarkdown(rows: ScenarioSummary[], records: TrialRecord[], header: string): string {
  const table = markdownTable(
    ['scenario', 'fault', 'trials', 'passed', 'finished', 'stored once', 'client exact', 'duplicates', 'lost words', 'next prompt', 'silence p50 s', 'p99 s', 'max s', 'fault → deltas again p50 s', 'fault → finished p50 s', 'restart p50 s'],
    rows.map((r) => [
      r.scenario,
      r.fault,
      r.trials === r.planned ? r.trials : `${r.trials} of ${r.planned}`,
      frac(r.passed, r.trials),
      frac(r.finished, r.trials),
      frac(r.stored_once, r.trials),
      frac(r.client_exact, r.trials),
      r.duplicates,
      r.extra_words ? `${r.lost_words} (+${r.extra_words} extra)` : r.lost_words,
      frac(r.next_prompt, r.trials),
      sec(r.silence_s.p50),
      sec(r.silence_s.p99),
      sec(r.silence_s.max),
      sec(r.fault_to_resume_s.p50),
      sec(r.fault_to_finished_s.p50),
      sec(r.restart_s.p50),
    ]),
  );
  const failures = records
    .filter((r) => !r.verdict.passed)
    .map((r) => `- **${r.scenario} #${r.trial}** (${r.fault_point ?? 'before the fault point'}): ${r.verdict.problems.join('; ')}`);
  const errors = rows.filter((r) => r.error).map((r) => `- **${r.scenario}**: ${r.error}`);
  return [
    header,
    '',
    table,
    '',
    ...(errors.length ? ['Scenarios that could not run all their trials:', '', ...errors, ''] : []),
    ...(failures.length ? ['Failed trials:', '', ...failures, ''] : ['Every trial passed every check.', '']),
  ].join('\n');
}

/** Client silence around the fault per scenario (log scale: kills take seconds, outages tens). */
export function chaosChart(scenarios: TrialScenario[], records: TrialRecord[], subtitle: string): TopLevelSpec {
  const values = records
    .filter((r) => r.recovery.silence !== undefined)
    .map((r) => ({
      scenario: r.scenario,
      component: scenarios.find((s) => s.id === r.scenario)?.component ?? r.scenario,
      silence: Math.max(0.01, r.recovery.silence! / 1000),
      result: r.verdict.passed ? 'passed' : 'failed',
    }));
  const y = { field: 'scenario', type: 'nominal' as const, sort: scenarios.map((s) => s.id), title: null };
  const x = { field: 'silence', type: 'quantitative' as const, scale: { type: 'log' as const }, title: 'longest silence between two deltas around the fault (s, log scale)' };
  return {
    title: { text: 'strand chaos: recovery at the client, per faulted component', subtitle: [subtitle, '× marks a trial that failed a check; the black bar is the median'] },
    width: 720,
    height: { step: 26 },
    data: { values },
    layer: [
      {
        mark: { type: 'point', filled: true, size: 70, opacity: 0.75 },
        encoding: { x, y, color: { field: 'component', type: 'nominal', title: 'component' } },
      },
      {
        transform: [{ filter: "datum.result === 'failed'" }],
        mark: { type: 'point', shape: 'cross', angle: 45, filled: true, size: 130, color: 'black' },
        encoding: { x, y },
      },
      {
        mark: { type: 'tick', color: 'black', thickness: 2, size: 18 },
        encoding: { x: { ...x, aggregate: 'median' }, y },
      },
    ],
    config: { font: 'DejaVu Sans' },
  };
}
