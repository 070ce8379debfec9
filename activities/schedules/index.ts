import { NOTE_SUMMARY_MAX_CHARS, type RunRecord, type ScheduleLedgerStore } from '../../contracts/schedule-ledger-kv';

export interface ScheduleActivitiesDeps {
  ledger: ScheduleLedgerStore;
}

/** The previous finished run of a schedule, as the next run's prompt reads it (notes between runs). */
export interface PreviousRunNote {
  due_ms: number;
  job_id: string;
  status: string;
  summary: string;
}

/**
 * What a scheduled run records in its schedule's ledger (contracts/schedule-ledger-kv.ts). Each is a
 * put of the run's own key, so a retried activity writes the same fact again, never a second one.
 */
export function createScheduleActivities(deps: ScheduleActivitiesDeps) {
  return {
    async recordScheduledRunStart(input: { generation: string; run: RunRecord }): Promise<void> {
      // A run whose end is already recorded (its workflow's history replayed past a lost reply) keeps it.
      const existing = await deps.ledger.getRun(input.generation, input.run.due_ms);
      if (existing && existing.status !== 'running') return;
      await deps.ledger.putRun(input.generation, input.run);
    },
    async recordScheduledRunEnd(input: { generation: string; run: RunRecord; paused_after_failure: boolean }): Promise<void> {
      const summary = input.run.summary?.slice(0, NOTE_SUMMARY_MAX_CHARS);
      await deps.ledger.putRun(input.generation, { ...input.run, ...(summary !== undefined ? { summary } : {}) });
      // Temporal pauses the schedule itself when this run fails; the ledger explains the due times that follow.
      if (input.paused_after_failure) await deps.ledger.putMark(input.generation, { kind: 'pause', at_ms: input.run.finished_ms ?? Date.now(), by: 'failure', note: `paused after the failed run ${input.run.job_id}` });
    },
    async previousScheduledRun(input: { generation: string; due_ms: number }): Promise<PreviousRunNote | null> {
      const before = (await deps.ledger.runs(input.generation)).filter((r) => r.due_ms < input.due_ms && r.status !== 'running');
      const last = before.at(-1);
      return last ? { due_ms: last.due_ms, job_id: last.job_id, status: last.status, summary: last.summary ?? '' } : null;
    },
  };
}
export type ScheduleActivities = ReturnType<typeof createScheduleActivities>;
