import { randomUUID } from 'node:crypto';
import type { NatsConnection } from 'nats';
import { z } from 'zod';
import { jobStatusSchema } from './job-report';
import { madeOnceItWorks } from './until-it-works';

/**
 * The facts a schedule's ledger is made of (docs/jobs.md, "Schedules"), in the NATS KV bucket
 * `strand_job_schedules`, kept until the schedule is deleted:
 *
 * - `<generation>.run.<due ms>`: a run that started, written by its run workflow (one writer per key:
 *   the workflow records its start, then its job's end);
 * - `<generation>.mark.<ms>-<uuid>`: what a person did to the schedule that the ledger must explain —
 *   a pause, a resume, a backfill — written by the gateway that did it, and a pause Temporal made
 *   after a failed run (`pause_on_failure`), written by that run.
 *
 * Skipped runs are not written anywhere: they are what remains of the spec's due times once these
 * facts are placed (services/gateway/schedules/ledger.ts).
 */
const SCHEDULE_LEDGER_BUCKET = 'strand_job_schedules';

const runRecordSchema = z.object({
  due_ms: z.number().int(),
  job_id: z.string(),
  workflow_id: z.string(),
  started_ms: z.number().int(),
  status: z.union([z.literal('running'), jobStatusSchema]),
  reason: z.string().optional(),
  /** The job's report summary (capped), which the next run reads when the schedule keeps notes. */
  summary: z.string().optional(),
  finished_ms: z.number().int().optional(),
});
export type RunRecord = z.infer<typeof runRecordSchema>;

const markSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('pause'), at_ms: z.number().int(), note: z.string().optional(), by: z.enum(['person', 'failure']) }),
  z.object({ kind: z.literal('resume'), at_ms: z.number().int() }),
  z.object({ kind: z.literal('backfill'), at_ms: z.number().int(), from_ms: z.number().int(), to_ms: z.number().int() }),
]);
export type ScheduleMark = z.infer<typeof markSchema>;

/** Summaries longer than this are cut: a note for the next run, not the report. */
export const NOTE_SUMMARY_MAX_CHARS = 8000;

export interface ScheduleLedgerStore {
  putRun(generation: string, run: RunRecord): Promise<void>;
  getRun(generation: string, dueMs: number): Promise<RunRecord | undefined>;
  runs(generation: string): Promise<RunRecord[]>;
  putMark(generation: string, mark: ScheduleMark): Promise<void>;
  marks(generation: string): Promise<ScheduleMark[]>;
  /** Removes every fact of a generation (its schedule was deleted). */
  purge(generation: string): Promise<void>;
}

export function scheduleLedgerKv(nc: NatsConnection): ScheduleLedgerStore {
  const kv = madeOnceItWorks(() => nc.jetstream().views.kv(SCHEDULE_LEDGER_BUCKET, { history: 1 }));
  const readAll = async <T>(filter: string, schema: z.ZodType<T>): Promise<T[]> => {
    const store = await kv();
    const keys: string[] = [];
    for await (const key of await store.keys(filter)) keys.push(key);
    const values = await Promise.all(keys.map((k) => store.get(k)));
    return values.flatMap((e) => {
      if (!e || e.operation !== 'PUT' || e.length === 0) return [];
      const parsed = schema.safeParse(e.json());
      return parsed.success ? [parsed.data] : [];
    });
  };
  return {
    async putRun(generation, run) {
      await (await kv()).put(`${generation}.run.${run.due_ms}`, JSON.stringify(run));
    },
    async getRun(generation, dueMs) {
      const e = await (await kv()).get(`${generation}.run.${dueMs}`);
      if (!e || e.operation !== 'PUT' || e.length === 0) return undefined;
      const parsed = runRecordSchema.safeParse(e.json());
      return parsed.success ? parsed.data : undefined;
    },
    runs: async (generation) => (await readAll(`${generation}.run.*`, runRecordSchema)).sort((a, b) => a.due_ms - b.due_ms),
    async putMark(generation, mark) {
      await (await kv()).put(`${generation}.mark.${mark.at_ms}-${randomUUID()}`, JSON.stringify(mark));
    },
    marks: async (generation) => (await readAll(`${generation}.mark.*`, markSchema)).sort((a, b) => a.at_ms - b.at_ms),
    async purge(generation) {
      const store = await kv();
      const keys: string[] = [];
      for await (const key of await store.keys(`${generation}.>`)) keys.push(key);
      await Promise.all(keys.map((k) => store.purge(k)));
    },
  };
}
