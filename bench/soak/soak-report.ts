// The project resolves modules the CommonJS way, which does not read vega-lite's `exports`: its types by path.
import type { TopLevelSpec } from 'vega-lite/build/index';
import { markdownTable } from '../report/markdown-table';
import { percentile } from '../stats';
import { PROTOCOLS, type Protocol, type SoakConfig } from './config';
import type { TrackedProcess, RssSample } from './rss';
import type { SoakError } from './soak-metrics';

/** One process's RSS over the measured run and whether it kept within the bound. */
export interface ProcessGrowth {
  process: string;
  ours: boolean;
  start_mb: number | null;
  end_mb: number | null;
  max_mb: number | null;
  growth_mb: number | null;
  growth_pct: number | null;
  /** Growth over the second half of the run alone: a leak keeps growing, a heap that settled does not. */
  second_half_growth_mb: number | null;
  /** Null for nats-server and Temporal (reported, not judged). */
  within_bound: boolean | null;
}

const r1 = (x: number) => Math.round(x * 10) / 10;
/** p50 and p99 of latency samples (ms), and how many there were. */
export function latencyFigures(xs: number[]): { p50: number | null; p99: number | null; n: number } {
  return { p50: xs.length ? r1(percentile(xs, 50)) : null, p99: xs.length ? r1(percentile(xs, 99)) : null, n: xs.length };
}

/** Start (after the warm-up), middle and end readings per process, judged against the bound. */
export function rssGrowth(processes: TrackedProcess[], samples: RssSample[], boundMb: number): ProcessGrowth[] {
  const first = samples[0];
  const last = samples[samples.length - 1];
  const middle = samples[Math.floor((samples.length - 1) / 2)];
  return processes.map((p) => {
    const at = (s: RssSample | undefined) => s?.mb[p.label] ?? null;
    const start = at(first);
    const end = at(last);
    const mid = at(middle);
    const readings = samples.map((s) => s.mb[p.label]).filter((x): x is number => typeof x === 'number');
    const growth = start !== null && end !== null ? r1(end - start) : null;
    return {
      process: p.label,
      ours: p.ours,
      start_mb: start,
      end_mb: end,
      max_mb: readings.length ? Math.max(...readings) : null,
      growth_mb: growth,
      growth_pct: growth !== null && start ? r1((growth / start) * 100) : null,
      second_half_growth_mb: mid !== null && end !== null ? r1(end - mid) : null,
      // A process that died (no end reading) is over any bound.
      within_bound: p.ours ? growth !== null && growth < boundMb : null,
    };
  });
}

export interface SoakSummary {
  turns: number;
  turns_per_s: number;
  turns_by_protocol: Record<Protocol, number>;
  first_delta_ms: ReturnType<typeof latencyFigures>;
  first_delta_ms_by_protocol: Record<Protocol, ReturnType<typeof latencyFigures>>;
  event_latency_ms: ReturnType<typeof latencyFigures> & { mismatched: number };
  errors: SoakError[];
  rss: ProcessGrowth[];
  passed: boolean;
}

export function soakMarkdown(config: SoakConfig, s: SoakSummary, header: string): string {
  const fmt = (x: number | null) => (x === null ? '—' : x);
  const lines = [
    header,
    '',
    `**${s.passed ? 'PASSED' : 'FAILED'}**: ${s.errors.length} errors (must be 0); RSS growth of every one of our processes below ${config.rssBoundMb} MB: ${s.rss.filter((r) => r.ours).every((r) => r.within_bound) ? 'yes' : 'no'}.`,
    '',
    markdownTable(
      ['figure', 'value'],
      [
        ['turns (measured run)', s.turns],
        ['turns/s', s.turns_per_s],
        ['first delta p50 / p99 (ms)', `${fmt(s.first_delta_ms.p50)} / ${fmt(s.first_delta_ms.p99)}`],
        ['event latency p50 / p99 (ms)', `${fmt(s.event_latency_ms.p50)} / ${fmt(s.event_latency_ms.p99)}`],
        ['deltas measured (mismatched)', `${s.event_latency_ms.n} (${s.event_latency_ms.mismatched})`],
        ['errors', s.errors.length],
      ],
    ),
    '',
    markdownTable(
      ['protocol', 'turns', 'first delta p50 (ms)', 'first delta p99 (ms)'],
      PROTOCOLS.map((p) => [p, s.turns_by_protocol[p], fmt(s.first_delta_ms_by_protocol[p].p50), fmt(s.first_delta_ms_by_protocol[p].p99)]),
    ),
    '',
    markdownTable(
      ['process', 'start MB', 'end MB', 'max MB', 'growth MB', 'growth %', '2nd half MB', `< ${config.rssBoundMb} MB`],
      s.rss.map((r) => [r.process, fmt(r.start_mb), fmt(r.end_mb), fmt(r.max_mb), fmt(r.growth_mb), fmt(r.growth_pct), fmt(r.second_half_growth_mb), r.within_bound === null ? 'not judged' : r.within_bound ? 'yes' : 'NO']),
    ),
  ];
  if (s.errors.length) {
    lines.push(
      '',
      '## Errors by kind',
      '',
      markdownTable(['kind', 'count', 'first at (s)', 'last at (s)'], errorKinds(s.errors).map((k) => [k.kind, k.count, k.first, k.last])),
      '',
      '## Errors (first 20)',
      '',
      ...s.errors.slice(0, 20).map((e) => `- ${e.at} s, ${e.protocol} ${e.session}: ${e.message}`),
    );
  }
  return lines.join('\n');
}

/** Errors grouped by their message with ids, numbers and quoted details blanked: what kinds of failure, and when. */
export function errorKinds(errors: SoakError[]): { kind: string; count: number; first: number; last: number }[] {
  const kinds = new Map<string, { kind: string; count: number; first: number; last: number }>();
  for (const e of errors) {
    const kind = `${e.protocol}: ${e.message.replace(/\{.*$/s, '{…}').replace(/\b[\w-]*\d[\w-]*\b/g, '#').slice(0, 120)}`;
    const k = kinds.get(kind);
    if (k) {
      k.count++;
      k.last = e.at;
    } else kinds.set(kind, { kind, count: 1, first: e.at, last: e.at });
  }
  return [...kinds.values()].sort((a, b) => b.count - a.count);
}

/** RSS per process over time (one line each) above turns/s per sample interval. */
export function soakChart(samples: RssSample[], turnsPerS: { at: number; turns_per_s: number }[], durationS: number, subtitle: string): TopLevelSpec {
  const rss = samples.flatMap((s) => Object.entries(s.mb).filter(([, mb]) => mb !== null).map(([process, mb]) => ({ at: s.at, process, mb })));
  const x = { field: 'at', type: 'quantitative' as const, title: 'seconds into the measured run (after the warm-up)', scale: { domain: [0, durationS] } };
  return {
    title: { text: 'strand soak: RSS of every process, and turns/s', subtitle },
    vconcat: [
      {
        width: 720,
        height: 320,
        data: { values: rss },
        mark: { type: 'line', point: true },
        encoding: { x, y: { field: 'mb', type: 'quantitative', title: 'RSS (MB)' }, color: { field: 'process', type: 'nominal', title: 'process' } },
      },
      {
        width: 720,
        height: 120,
        data: { values: turnsPerS },
        mark: { type: 'line', point: true, color: 'black' },
        encoding: { x, y: { field: 'turns_per_s', type: 'quantitative', title: 'turns/s', scale: { zero: true } } },
      },
    ],
    config: { font: 'DejaVu Sans' },
  };
}
