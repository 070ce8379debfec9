import { percentile } from '../stats';
import type { PhaseResult } from './workload';
import type { Sample } from './load-client';

const KINDS: Sample['kind'][] = ['get', 'list', 'patch', 'prompt'];
const round = (x: number) => Math.round(x);

/** Per kind of call: how many, p50/p99/max in ms, answers 5xx and answers missing (no answer at all). */
export function summarize(result: PhaseResult) {
  const kinds = Object.fromEntries(
    KINDS.map((kind) => {
      const of = result.samples.filter((s) => s.kind === kind);
      const ms = of.map((s) => s.ms);
      return [kind, { count: of.length, p50_ms: round(percentile(ms, 50)), p99_ms: round(percentile(ms, 99)), max_ms: round(Math.max(0, ...ms)), status_5xx: of.filter((s) => s.status >= 500).length, missing: of.filter((s) => s.status === 0).length, other_4xx: countBy(of.filter((s) => s.status >= 400 && s.status < 500)) }];
    }),
  );
  // Every 5xx or missing answer with what the gateway said, so a missed target can be explained.
  const failures = result.samples.filter((s) => s.status >= 500 || s.status === 0).map(({ kind, status, ms, at, error }) => ({ kind, status, ms: round(ms), at: new Date(at).toISOString(), error }));
  return { calls: kinds, turns: result.turns, unfinished: result.unfinished, failures };
}

function countBy(samples: Sample[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples) out[String(s.status)] = (out[String(s.status)] ?? 0) + 1;
  return out;
}

/** The targets for the busy phase, each with its figure and whether it held. */
export function targets(summary: ReturnType<typeof summarize>) {
  const c = summary.calls as unknown as Record<Sample['kind'], { p99_ms: number; status_5xx: number; missing: number }>;
  const failed = KINDS.reduce((n, k) => n + c[k].status_5xx + c[k].missing, 0);
  const t = summary.turns;
  return {
    no_5xx_or_missing: { value: failed, target: 0, held: failed === 0 },
    get_p99_ms: { value: c.get.p99_ms, target: 500, held: c.get.p99_ms <= 500 },
    list_p99_ms: { value: c.list.p99_ms, target: 1000, held: c.list.p99_ms <= 1000 },
    patch_p99_ms: { value: c.patch.p99_ms, target: 3000, held: c.patch.p99_ms <= 3000 },
    every_turn_finished: { value: `${t.done} done of ${t.accepted} accepted`, target: 'all done', held: t.accepted > 0 && t.done === t.accepted },
  };
}

/** The figures as a markdown table (bench/results/load.md). */
export function markdown(phases: Record<string, ReturnType<typeof summarize>>, held: ReturnType<typeof targets>, meta: Record<string, unknown>): string {
  const lines = ['| phase | call | count | p50 ms | p99 ms | max ms | 5xx | missing |', '|---|---|---|---|---|---|---|---|'];
  for (const [phase, s] of Object.entries(phases)) {
    for (const kind of KINDS) {
      const k = (s.calls as Record<string, { count: number; p50_ms: number; p99_ms: number; max_ms: number; status_5xx: number; missing: number }>)[kind]!;
      lines.push(`| ${phase} | ${kind} | ${k.count} | ${k.p50_ms} | ${k.p99_ms} | ${k.max_ms} | ${k.status_5xx} | ${k.missing} |`);
    }
    lines.push(`| ${phase} | turns | ${s.turns.accepted} accepted | ${s.turns.done} done | | | | |`);
  }
  const verdict = Object.entries(held).map(([name, v]) => `- ${name}: ${String(v.value)} (target ${String(v.target)}) — ${v.held ? 'held' : 'NOT held'}`);
  return [`# npm run bench:load`, '', '```json', JSON.stringify(meta, null, 2), '```', '', ...lines, '', 'Targets (busy phase):', '', ...verdict, ''].join('\n');
}
