import type { OperatorOverview } from './api';
import { breakdown, counted, round, span } from './format';

/**
 * The four charts' data and text summaries, from the overview's history (contracts/operator.ts).
 * Pure: chart.tsx draws a ChartSpec, and its summary is what a screen reader (and a test) reads.
 */

type Point = OperatorOverview['series'][number];

export interface ChartSpec {
  title: string;
  /** The y axis's unit, for its label. */
  unit: string;
  series: Array<{ label: string; color: string }>;
  /** uPlot's aligned data: the times (s since epoch), then one array per series (null: nothing measured). */
  data: [number[], ...Array<Array<number | null>>];
  /** The latest values in words. */
  summary: string;
}

/** Colours that keep their meaning (outcomes as the chat page colours them, told apart at a glance), then a fixed palette. */
const KNOWN_COLORS: Record<string, string> = {
  done: '#067647',
  error: '#d92d20',
  aborted: '#f79009',
  p50: '#3357d6',
  p90: '#7a5af8',
  p99: '#c11574',
  sse: '#3357d6',
  chat_stream: '#0e9384',
  websocket: '#7a5af8',
  edn: '#b54708',
};
const PALETTE = ['#3357d6', '#b42318', '#b54708', '#0e9384', '#7a5af8', '#c11574', '#475467'];
const colorOf = (key: string, i: number) => KNOWN_COLORS[key] ?? PALETTE[i % PALETTE.length]!;

/** Every key that appears in any point's record, in a stable order: the preferred ones first. */
function keysOf(points: Point[], pick: (p: Point) => Record<string, number>, preferred: string[] = []): string[] {
  const seen = new Set<string>();
  for (const p of points) for (const k of Object.keys(pick(p))) seen.add(k);
  return [...preferred.filter((k) => seen.has(k)), ...[...seen].filter((k) => !preferred.includes(k)).sort()];
}

const times = (points: Point[]) => points.map((p) => Math.round(p.at / 1000));

function sum(points: Point[], pick: (p: Point) => Record<string, number>): Record<string, number> {
  const total: Record<string, number> = {};
  for (const p of points) for (const [k, n] of Object.entries(pick(p))) total[k] = (total[k] ?? 0) + n;
  return total;
}

const covered = (o: OperatorOverview) => span(o.series.length * o.interval_s);

/** Turns finished per minute, one line per outcome. */
function turnsChart(o: OperatorOverview): ChartSpec {
  const points = o.series;
  const outcomes = keysOf(points, (p) => p.turns_finished, ['done', 'error', 'aborted']);
  const perMinute = 60 / o.interval_s;
  const finished = sum(points, (p) => p.turns_finished);
  const total = Object.values(finished).reduce((a, b) => a + b, 0);
  const latest = points.at(-1)?.turns_per_minute ?? 0;
  return {
    title: 'Turns per minute',
    unit: 'turns/min',
    series: outcomes.map((k, i) => ({ label: k, color: colorOf(k, i) })),
    data: [times(points), ...outcomes.map((k) => points.map((p) => (p.turns_finished[k] ?? 0) * perMinute))],
    summary: `${counted(total, 'turn')} finished in ${covered(o)}${total ? ` (${breakdown(finished)})` : ''}; ${round(latest)} per minute in the latest interval.`,
  };
}

/** First-delta latency: p50, p90, p99 over each interval. */
function latencyChart(o: OperatorOverview): ChartSpec {
  const points = o.series;
  const levels = ['p50', 'p90', 'p99'] as const;
  const last = [...points].reverse().find((p) => p.first_delta_ms)?.first_delta_ms;
  return {
    title: 'First-delta latency',
    unit: 'ms',
    series: levels.map((k, i) => ({ label: k, color: colorOf(k, i) })),
    data: [times(points), ...levels.map((k) => points.map((p) => p.first_delta_ms?.[k] ?? null))],
    summary: last
      ? `Latest first-delta latency: p50 ${Math.round(last.p50)} ms, p90 ${Math.round(last.p90)} ms, p99 ${Math.round(last.p99)} ms.`
      : `No turn started answering in ${covered(o)}.`,
  };
}

/** Model steps the providers failed, by class. */
function providerErrorsChart(o: OperatorOverview): ChartSpec {
  const points = o.series;
  const classes = keysOf(points, (p) => p.provider_errors, ['rate_limited', 'overloaded', 'transient', 'auth', 'context_overflow', 'permanent']);
  const total = sum(points, (p) => p.provider_errors);
  const n = Object.values(total).reduce((a, b) => a + b, 0);
  return {
    title: 'Provider errors by class',
    unit: 'errors',
    series: classes.map((k, i) => ({ label: k, color: colorOf(k, i + 1) })),
    data: [times(points), ...classes.map((k) => points.map((p) => p.provider_errors[k] ?? 0))],
    summary: n ? `${counted(n, 'provider error')} in ${covered(o)} (${breakdown(total)}).` : `No provider errors in ${covered(o)}.`,
  };
}

/** Open client connections at each interval's end, by protocol. */
function connectionsChart(o: OperatorOverview): ChartSpec {
  const points = o.series;
  const protocols = keysOf(points, (p) => p.connections, ['sse', 'chat_stream', 'websocket', 'edn']);
  const now = points.at(-1)?.connections ?? {};
  const n = Object.values(now).reduce((a, b) => a + b, 0);
  return {
    title: 'Connections by protocol',
    unit: 'connections',
    series: protocols.map((k, i) => ({ label: k, color: colorOf(k, i) })),
    data: [times(points), ...protocols.map((k) => points.map((p) => p.connections[k] ?? 0))],
    summary: `${counted(n, 'open connection')} now${n ? ` (${breakdown(now)})` : ''}.`,
  };
}

export const allCharts = (o: OperatorOverview): ChartSpec[] => [turnsChart(o), latencyChart(o), providerErrorsChart(o), connectionsChart(o)];
