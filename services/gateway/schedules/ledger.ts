import type { LedgerEntry } from '../../../contracts/job-schedule';
import type { RunRecord, ScheduleMark } from '../../../contracts/schedule-ledger-kv';

/**
 * A schedule's ledger: every due time, placed. Temporal records no skipped run, only counts, so the
 * ledger is rebuilt on each read from facts that are each written once by their one owner:
 *
 * - the due times: the spec's matching times since the schedule's creation and in each backfill's
 *   range, as Temporal computes them (ListScheduleMatchingTimes);
 * - the runs that started, recorded by their run workflow (`ran`, with the job and how it ended); a
 *   run whose workflow Temporal started but that no worker has recorded yet is `ran` too, its job
 *   `waiting_for_worker` (the id Temporal gives a run's workflow names its due time, so it is found);
 * - the pauses and resumes done through the gateway, and the pause Temporal makes after a failed run
 *   (`pause_on_failure`), recorded as marks: a due time inside a pause is `skipped: paused`;
 * - Temporal's counts: every other due time Temporal has acted on (it is before the schedule's next
 *   action time) is skipped for `overlap` or `catchup_missed` — which one by the counts (only one of
 *   them is non-zero, the usual case) or else by whether a run was still going at that due time.
 *
 * What Temporal has not acted on yet is `pending`: a due time not before its next action time, a
 * backfill asked for moments ago, and — when the whole ledger is read — the latest of the skipped ones
 * beyond Temporal's counts (a backfill its scheduler has not yet got to).
 */
export interface LedgerFacts {
  /** The spec's matching times, oldest first, since the schedule was created (or the latest of them). */
  scheduled: number[];
  /** Whether `scheduled` goes back to the schedule's creation (then Temporal's counts can be checked against the whole ledger). */
  complete: boolean;
  /** Each backfill: when it was asked for and its range's matching times. */
  backfills: Array<{ at_ms: number; times: number[] }>;
  runs: RunRecord[];
  marks: ScheduleMark[];
  /** Temporal's next action time (undefined while paused or when no more are due). */
  nextActionMs: number | undefined;
  skippedOverlap: number;
  missedCatchup: number;
  now: number;
}

/** A run workflow Temporal started for a due time that its ledger has no record of (yet). */
export type StartedRun = { running: boolean } | undefined;

/** How long after a due time (or a backfill's request) its outcome may still be unknown while Temporal gets to it. */
const PENDING_GRACE_MS = 5_000;

const iso = (ms: number) => new Date(ms).toISOString();

export function pauseIntervals(marks: ScheduleMark[]): Array<{ from: number; to: number }> {
  const intervals: Array<{ from: number; to: number }> = [];
  let open: number | undefined;
  for (const m of marks) {
    if (m.kind === 'pause' && open === undefined) open = m.at_ms;
    if (m.kind === 'resume' && open !== undefined) {
      intervals.push({ from: open, to: m.at_ms });
      open = undefined;
    }
  }
  if (open !== undefined) intervals.push({ from: open, to: Number.POSITIVE_INFINITY });
  return intervals;
}

function ranEntry(due: number, kind: LedgerEntry['kind'], run: RunRecord): LedgerEntry {
  return {
    due_at: iso(due),
    kind,
    outcome: 'ran',
    job_id: run.job_id,
    job_status: run.status,
    ...(run.reason ? { job_reason: run.reason } : {}),
    started_at: iso(run.started_ms),
    ...(run.finished_ms !== undefined ? { finished_at: iso(run.finished_ms) } : {}),
  };
}

/** The latest `limit` due times, oldest first; `lookup` finds the run workflow Temporal started for a due time. */
export async function placeRuns(facts: LedgerFacts, limit: number, jobIdOf: (dueMs: number) => string, lookup: (dueMs: number) => Promise<StartedRun>): Promise<LedgerEntry[]> {
  const kinds = new Map<number, LedgerEntry['kind']>();
  const backfillAsked = new Map<number, number>();
  for (const b of facts.backfills)
    for (const t of b.times) {
      kinds.set(t, 'backfill');
      backfillAsked.set(t, Math.max(backfillAsked.get(t) ?? 0, b.at_ms));
    }
  for (const t of facts.scheduled) kinds.set(t, 'scheduled');
  const runs = new Map(facts.runs.map((r) => [r.due_ms, r]));
  const pauses = pauseIntervals(facts.marks);
  const paused = (t: number) => pauses.some((p) => p.from <= t && t <= p.to);
  // A scheduled time the scheduler reached only after a pause had begun (a busy server acts late) was skipped for the pause.
  const pauseJustAfter = (t: number) => pauses.some((p) => t < p.from && p.from - t <= PENDING_GRACE_MS);
  // A run at no due time was triggered (a trigger is due at its millisecond, never a whole second).
  for (const r of facts.runs) if (!kinds.has(r.due_ms)) kinds.set(r.due_ms, 'trigger');

  const dues = [...kinds.keys()].sort((a, b) => a - b).slice(-limit);
  const runOpenAt = (t: number) => facts.runs.some((r) => r.started_ms <= t && (r.finished_ms === undefined || r.finished_ms >= t));

  // Temporal starts no scheduled run while paused: well inside a pause there is no workflow to look for.
  const deepInPause = (t: number) => kinds.get(t) === 'scheduled' && pauses.some((p) => p.from + PENDING_GRACE_MS < t && t < p.to - PENDING_GRACE_MS);
  const unexplained = dues.filter((t) => !runs.has(t) && !deepInPause(t));
  const started = new Map<number, StartedRun>();
  for (let i = 0; i < unexplained.length; i += 20) {
    const batch = unexplained.slice(i, i + 20);
    (await Promise.all(batch.map(lookup))).forEach((s, j) => started.set(batch[j]!, s));
  }

  const entries = dues.map((t): LedgerEntry => {
    const kind = kinds.get(t)!;
    const run = runs.get(t);
    if (run) return ranEntry(t, kind, run);
    const seen = started.get(t);
    if (seen) return { due_at: iso(t), kind, outcome: 'ran', job_id: jobIdOf(t), job_status: seen.running ? 'waiting_for_worker' : 'unknown' };
    const skipped = (reason: NonNullable<LedgerEntry['reason']>): LedgerEntry => ({ due_at: iso(t), kind, outcome: 'skipped', reason });
    const pending: LedgerEntry = { due_at: iso(t), kind, outcome: 'pending' };
    // A backfill is neither paused nor caught up: a time it did not run was skipped for overlap.
    if (kind === 'backfill') return backfillAsked.get(t)! > facts.now - PENDING_GRACE_MS ? pending : skipped('overlap');
    if (paused(t)) return skipped('paused');
    const acted = facts.nextActionMs !== undefined ? t < facts.nextActionMs : t <= facts.now - PENDING_GRACE_MS;
    if (!acted) return pending;
    if (facts.missedCatchup === 0) return facts.skippedOverlap > 0 ? skipped('overlap') : pauseJustAfter(t) ? skipped('paused') : pending;
    if (facts.skippedOverlap === 0) return skipped('catchup_missed');
    return skipped(runOpenAt(t) ? 'overlap' : 'catchup_missed');
  });
  const pausedJustAfter = (e: LedgerEntry) => e.kind === 'scheduled' && pauseJustAfter(Date.parse(e.due_at));
  if (facts.complete && dues.length === kinds.size) beyondCounts(entries, facts, backfillAsked, pausedJustAfter);
  return entries;
}

/**
 * Skips beyond Temporal's counts are ones it has not counted: a scheduled time a pause began just
 * after was skipped for that pause (the scheduler met the pause first); of the others, the latest it
 * acts on (a backfill's, at its request) are pending.
 */
function beyondCounts(entries: LedgerEntry[], facts: LedgerFacts, backfillAsked: Map<number, number>, pausedJustAfter: (e: LedgerEntry) => boolean): void {
  for (const [reason, counted] of [['overlap', facts.skippedOverlap], ['catchup_missed', facts.missedCatchup]] as const) {
    const listed = entries.filter((e) => e.reason === reason);
    const actedAt = (e: LedgerEntry) => (e.kind === 'backfill' ? backfillAsked.get(Date.parse(e.due_at))! : Date.parse(e.due_at));
    const uncounted = (e: LedgerEntry) => (pausedJustAfter(e) ? 1 : 0);
    const excess = listed.sort((a, b) => uncounted(a) - uncounted(b) || actedAt(a) - actedAt(b) || Date.parse(a.due_at) - Date.parse(b.due_at)).slice(counted);
    for (const e of excess) {
      if (pausedJustAfter(e)) {
        e.reason = 'paused';
        continue;
      }
      e.outcome = 'pending';
      delete e.reason;
    }
  }
}
