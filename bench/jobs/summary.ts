import { markdownTable } from '../report/markdown-table';
import { percentile } from '../stats';
import type { Counts } from '../capacity/temporal-actions';
import type { PhaseResult } from './phases';

/** The stack's processes whose CPU a unit costs, as the stack names them (two workers). */
export const PROCESSES = ['worker', 'worker#2', 'gateway', 'store', 'temporal', 'nats'] as const;
type ProcessName = (typeof PROCESSES)[number];
export type CpuMs = Record<ProcessName, number>;

const round = (x: number, digits = 1) => +x.toFixed(digits);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

function perUnit(units: Counts[], n: number): Counts & { total: number } {
  const out: Counts = {};
  for (const c of units) for (const [k, v] of Object.entries(c)) out[k] = (out[k] ?? 0) + v;
  const per = Object.fromEntries(Object.entries(out).sort().map(([k, v]) => [k, round(v / n, 2)]));
  return { ...per, total: round(sum(Object.values(out)) / n, 2) };
}

/**
 * One phase's figures: wall time (first submit → last end, Temporal's end times), units per minute,
 * each unit's duration (submit → end) and queueing (submit → its work turn started) p50/p99, CPU ms
 * per unit of each process (raw, and above what the process burns idle over the same seconds),
 * Temporal actions and history events per unit by type.
 */
export function phaseFigures(phase: PhaseResult, cpuBefore: CpuMs, cpuAfter: CpuMs, idleMsPerS: CpuMs) {
  const n = phase.units.length;
  const firstSubmit = Math.min(...phase.units.map((u) => u.submittedAt));
  const lastEnd = Math.max(...phase.units.map((u) => u.endedAt));
  const wallS = (lastEnd - firstSubmit) / 1000;
  const durations = phase.units.map((u) => u.endedAt - u.submittedAt);
  const queueing = phase.units.map((u) => u.turnStartedAt - u.submittedAt);
  const cpuSeconds = (phase.lastEnd - phase.firstSubmit) / 1000;
  const cpu = Object.fromEntries(PROCESSES.map((p) => [p, round((cpuAfter[p] - cpuBefore[p]) / n)])) as CpuMs;
  const cpuAboveIdle = Object.fromEntries(PROCESSES.map((p) => [p, round((cpuAfter[p] - cpuBefore[p] - idleMsPerS[p] * cpuSeconds) / n)])) as CpuMs;
  const reportDurations = phase.units.flatMap((u) => (u.reportDurationMs === undefined ? [] : [u.reportDurationMs]));
  return {
    units: n,
    wall_s: round(wallS, 2),
    per_minute: round((n / wallS) * 60, 1),
    duration_ms: { p50: percentile(durations, 50), p99: percentile(durations, 99), max: Math.max(...durations) },
    queueing_ms: { p50: percentile(queueing, 50), p99: percentile(queueing, 99), max: Math.max(...queueing) },
    ...(reportDurations.length > 0 ? { report_duration_ms: { p50: percentile(reportDurations, 50), p99: percentile(reportDurations, 99) } } : {}),
    cpu_ms_per_unit: { ...cpu, total: round(sum(Object.values(cpu))) },
    cpu_ms_per_unit_above_idle: { ...cpuAboveIdle, total: round(sum(Object.values(cpuAboveIdle))) },
    temporal_actions_per_unit: perUnit(phase.units.map((u) => u.actions), n),
    history_events_per_unit: perUnit(phase.units.map((u) => u.events), n),
    workflows_per_unit: round(sum(phase.units.map((u) => u.workflows)) / n, 2),
    /** How the units ended: a job's report status, a turn's outcome. */
    statuses: phase.units.reduce<Counts>((c, u) => ({ ...c, [u.status]: (c[u.status] ?? 0) + 1 }), {}),
  };
}

export type PhaseFigures = ReturnType<typeof phaseFigures>;

const ACTION_TYPES: Record<string, string> = {
  workflow_started: 'workflow started by a client (the job, or the session by update-with-start)',
  child_workflow_started: 'child workflow started (StartChildWorkflowExecutionInitiated)',
  activity_attempt: 'activity attempt (ActivityTaskStarted × its attempt)',
  timer_started: 'timer started',
  signal: 'signal received (WorkflowExecutionSignaled)',
  update: 'update accepted',
  search_attributes_upserted: 'search attributes upserted',
  marker: 'local activity / side effect marker (patch markers not counted)',
};

/** The markdown of bench/results/jobs.md. */
export function jobsMarkdown(out: { date: string; jobs: number; runs: number; load: { before: number[]; after: number[] }; machine: { cpus: number }; jobs_phase: PhaseFigures; baseline: PhaseFigures }): string {
  const { jobs_phase: j, baseline: b } = out;
  const both = (f: (p: PhaseFigures) => number | string) => [f(j), f(b)];
  const overhead = (f: (p: PhaseFigures) => number) => round(f(j) - f(b), 1);
  const lines = [
    '# npm run bench:jobs',
    '',
    `${out.jobs} jobs submitted at once over \`POST /api/jobs\` on one git repository (each its own worktree), on a real stack with two workers and the`,
    `fake OpenAI-format provider (each work turn: write a file, run \`wc -l\`, end), against the baseline: the same ${out.jobs} turns as plain`,
    `session prompts in the same run. ${out.date}, ${out.machine.cpus} cores, load average (1/5/15 min) ${out.load.before.join(' / ')} before, ${out.load.after.join(' / ')} after; median of ${out.runs} run(s).`,
    '',
    markdownTable(
      ['figure', 'jobs', 'baseline (session prompts)', 'job overhead'],
      [
        ['wall time, first submit → last end (s)', ...both((p) => p.wall_s), overhead((p) => p.wall_s)],
        ['units per minute', ...both((p) => p.per_minute), '—'],
        ['duration p50 (submit → end, ms)', ...both((p) => p.duration_ms.p50), overhead((p) => p.duration_ms.p50)],
        ['duration p99 (ms)', ...both((p) => p.duration_ms.p99), overhead((p) => p.duration_ms.p99)],
        ['queueing p50 (submit → work turn started, ms)', ...both((p) => p.queueing_ms.p50), overhead((p) => p.queueing_ms.p50)],
        ['queueing p99 (ms)', ...both((p) => p.queueing_ms.p99), overhead((p) => p.queueing_ms.p99)],
        ['workflows per unit', ...both((p) => p.workflows_per_unit), overhead((p) => p.workflows_per_unit)],
        ['Temporal actions per unit', ...both((p) => p.temporal_actions_per_unit.total), overhead((p) => p.temporal_actions_per_unit.total)],
        ['history events per unit', ...both((p) => p.history_events_per_unit.total), overhead((p) => p.history_events_per_unit.total)],
      ],
    ),
    '',
    'CPU ms per unit, by process (user + system time of its process tree from /proc; in parentheses: above what it burns idle over the same seconds):',
    '',
    markdownTable(
      ['process', 'jobs', 'baseline', 'job overhead'],
      [...PROCESSES, 'total' as const].map((p) => [p, `${j.cpu_ms_per_unit[p]} (${j.cpu_ms_per_unit_above_idle[p]})`, `${b.cpu_ms_per_unit[p]} (${b.cpu_ms_per_unit_above_idle[p]})`, round(j.cpu_ms_per_unit[p] - b.cpu_ms_per_unit[p])]),
    ),
    '',
    'Temporal actions per unit, by type (counted over the unit\'s workflow and every child it started):',
    '',
    markdownTable(
      ['action', 'jobs', 'baseline', 'what is counted'],
      Object.keys(ACTION_TYPES).map((k) => [k, j.temporal_actions_per_unit[k] ?? 0, b.temporal_actions_per_unit[k] ?? 0, ACTION_TYPES[k]!]),
    ),
  ];
  return lines.join('\n');
}
