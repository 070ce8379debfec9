import { randomUUID } from 'node:crypto';
import { ScheduleAlreadyRunning, ScheduleNotFoundError, WorkflowNotFoundError, type Client, type ScheduleDescription, type ScheduleHandle } from '@temporalio/client';
import { z } from 'zod';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import {
  intervalMs,
  runWorkflowId,
  runWorkflowIdPrefix,
  SCHEDULED_JOB_RUN_WORKFLOW_TYPE,
  type scheduleCreateBodySchema,
  scheduledJobId,
  scheduledJobRunInputSchema,
  temporalScheduleId,
  TEMPORAL_SCHEDULE_ID_PREFIX,
  triggerWorkflowId,
  type LedgerEntry,
  type OverlapPolicy,
  type ScheduledJobRunInput,
  type ScheduleView,
} from '../../../contracts/job-schedule';
import type { ScheduleLedgerStore } from '../../../contracts/schedule-ledger-kv';
import { connectedClient, type TemporalLink } from '../temporal/temporal-link';
import { placeRuns } from './ledger';
import { latestMatchingTimes, matchingTimes } from './matching-times';

const OVERLAP = { skip: 'SKIP', buffer_one: 'BUFFER_ONE', cancel_other: 'CANCEL_OTHER', allow_all: 'ALLOW_ALL' } as const;
const OVERLAP_BACK = Object.fromEntries(Object.entries(OVERLAP).map(([k, v]) => [v, k])) as Record<string, OverlapPolicy>;

/** What the schedule's memo keeps: who owns it and its spec as written (Temporal keeps a cron only as calendars). */
const MEMO_KEY = 'strand.schedule';
const memoSchema = z.object({ owner: z.string().nullable(), cron: z.string().optional(), interval: z.string().optional(), timezone: z.string().optional() });

type CreateBody = z.output<typeof scheduleCreateBodySchema>;

export interface ScheduleServiceDeps {
  temporal: Pick<TemporalLink, 'current' | 'unavailableReason'>;
  ledger: ScheduleLedgerStore;
  /** The task queue the workers poll: the runs and their jobs run there. */
  taskQueue: string;
  now?: () => number;
}

interface Owned {
  handle: ScheduleHandle;
  description: ScheduleDescription;
  memo: z.infer<typeof memoSchema>;
  input: z.output<typeof scheduledJobRunInputSchema>;
}

/**
 * Job schedules on Temporal Schedules (docs/jobs.md, "Schedules"): Temporal owns the schedule (its
 * spec, state, overlap, catch-up and pause-on-failure policies); the ledger's facts are in the KV
 * bucket (contracts/schedule-ledger-kv.ts). A schedule is its owner's: another principal's answers as
 * an unknown one (404).
 */
export class ScheduleService {
  private readonly now: () => number;
  constructor(private readonly deps: ScheduleServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  private client(): Client {
    return connectedClient(this.deps.temporal);
  }

  async create(body: CreateBody, owner: string | undefined): Promise<ScheduleView> {
    const client = this.client();
    const input: ScheduledJobRunInput = { schedule: body.name, generation: randomUUID(), spec: body.spec, notes: body.notes, pause_on_failure: body.pause_on_failure };
    const memo = { owner: owner ?? null, ...(body.cron ? { cron: body.cron } : {}), ...(body.interval ? { interval: body.interval } : {}), ...(body.timezone ? { timezone: body.timezone } : {}) };
    try {
      await client.schedule.create({
        scheduleId: temporalScheduleId(body.name),
        spec: body.cron ? { cronExpressions: [body.cron], ...(body.timezone ? { timezone: body.timezone } : {}) } : { intervals: [{ every: intervalMs(body.interval!) }] },
        action: { type: 'startWorkflow', workflowType: SCHEDULED_JOB_RUN_WORKFLOW_TYPE, workflowId: runWorkflowIdPrefix(body.name), taskQueue: this.deps.taskQueue, args: [input] },
        policies: { overlap: OVERLAP[body.overlap], pauseOnFailure: body.pause_on_failure, ...(body.catchup_window_s !== undefined ? { catchupWindow: body.catchup_window_s * 1000 } : {}) },
        memo: { [MEMO_KEY]: memo },
      });
    } catch (err) {
      if (err instanceof ScheduleAlreadyRunning) throw new StrandError(ErrorCode.INVALID_REQUEST, `a schedule named ${body.name} exists`, { name: body.name });
      throw asInvalid(err);
    }
    return this.view(await this.owned(body.name, owner));
  }

  async list(owner: string | undefined): Promise<Array<{ name: string; paused: boolean; next_runs: string[] }>> {
    const found: Array<{ name: string; paused: boolean; next_runs: string[] }> = [];
    for await (const s of this.client().schedule.list()) {
      if (!s.scheduleId.startsWith(TEMPORAL_SCHEDULE_ID_PREFIX)) continue;
      const memo = memoSchema.safeParse(s.memo?.[MEMO_KEY]);
      if (!memo.success || !visibleTo(memo.data.owner, owner)) continue;
      found.push({ name: s.scheduleId.slice(TEMPORAL_SCHEDULE_ID_PREFIX.length), paused: s.state.paused, next_runs: s.info.nextActionTimes.map((d) => d.toISOString()) });
    }
    return found.sort((a, b) => a.name.localeCompare(b.name));
  }

  async get(name: string, owner: string | undefined): Promise<ScheduleView & { ledger: LedgerEntry[] }> {
    const owned = await this.owned(name, owner);
    return { ...this.view(owned), ledger: await this.ledgerOf(owned, 20) };
  }

  async runs(name: string, owner: string | undefined, limit: number) {
    const runs = await this.ledgerOf(await this.owned(name, owner), limit);
    const count = (o: LedgerEntry['outcome']) => runs.filter((r) => r.outcome === o).length;
    return { name, runs, counts: { ran: count('ran'), skipped: count('skipped'), pending: count('pending') } };
  }

  /** The pause is marked before Temporal is told, the resume after it answered: the marks span the real pause, and a run that still started is a recorded fact that wins. */
  async pause(name: string, owner: string | undefined, note: string | undefined): Promise<void> {
    const { handle, input } = await this.owned(name, owner);
    await this.deps.ledger.putMark(input.generation, { kind: 'pause', at_ms: this.now(), by: 'person', ...(note ? { note } : {}) });
    try {
      await handle.pause(note ?? 'paused through strand');
    } catch (err) {
      await this.deps.ledger.putMark(input.generation, { kind: 'resume', at_ms: this.now() });
      throw err;
    }
  }

  async resume(name: string, owner: string | undefined): Promise<void> {
    const { handle, input } = await this.owned(name, owner);
    await handle.unpause('resumed through strand');
    await this.deps.ledger.putMark(input.generation, { kind: 'resume', at_ms: this.now() });
  }

  /**
   * Runs the job now, whatever runs already, paused or not; its ledger entry is a `trigger`, due when
   * asked for. Started here, not with Temporal's trigger, whose run shares its id with a scheduled run
   * due in the same second (triggerWorkflowId); so Temporal's overlap policy does not count it.
   */
  async trigger(name: string, owner: string | undefined): Promise<void> {
    const { input } = await this.owned(name, owner);
    // Never on a whole second, where a scheduled run's job id and ledger key are.
    const at = this.now() % 1000 === 0 ? this.now() + 1 : this.now();
    await this.client().workflow.start(SCHEDULED_JOB_RUN_WORKFLOW_TYPE, { workflowId: triggerWorkflowId(name, at), taskQueue: this.deps.taskQueue, args: [input] });
  }

  /** Runs every due time of `[from, to]` now, under the schedule's overlap policy (Temporal's backfill). */
  async backfill(name: string, owner: string | undefined, from: string, to: string): Promise<void> {
    const { handle, input } = await this.owned(name, owner);
    await this.deps.ledger.putMark(input.generation, { kind: 'backfill', at_ms: this.now(), from_ms: Date.parse(from), to_ms: Date.parse(to) });
    await handle.backfill({ start: new Date(from), end: new Date(to) });
  }

  /** Deletes the schedule and its ledger; runs under way finish (their jobs are not cancelled). */
  async delete(name: string, owner: string | undefined): Promise<void> {
    const { handle, input } = await this.owned(name, owner);
    await handle.delete();
    await this.deps.ledger.purge(input.generation);
  }

  private async owned(name: string, owner: string | undefined): Promise<Owned> {
    const handle = this.client().schedule.getHandle(temporalScheduleId(name));
    const notFound = () => new StrandError(ErrorCode.JOB_NOT_FOUND, `no schedule ${name}`, { name });
    let description: ScheduleDescription;
    try {
      description = await handle.describe();
    } catch (err) {
      if (err instanceof ScheduleNotFoundError) throw notFound();
      throw err;
    }
    const memo = memoSchema.safeParse(description.memo?.[MEMO_KEY]);
    const action = description.action;
    const input = action.type === 'startWorkflow' ? scheduledJobRunInputSchema.safeParse(action.args?.[0]) : undefined;
    if (!memo.success || !input?.success || !visibleTo(memo.data.owner, owner)) throw notFound();
    return { handle, description, memo: memo.data, input: input.data };
  }

  private view({ description: d, memo, input }: Owned): ScheduleView {
    const name = input.schedule;
    return {
      name,
      spec: input.spec,
      ...(memo.cron ? { cron: memo.cron } : {}),
      ...(memo.interval ? { interval: memo.interval } : {}),
      ...(memo.timezone ? { timezone: memo.timezone } : {}),
      overlap: OVERLAP_BACK[d.policies.overlap ?? 'SKIP'] ?? 'skip',
      catchup_window_s: Math.round(d.policies.catchupWindow / 1000),
      pause_on_failure: d.policies.pauseOnFailure,
      notes: input.notes,
      state: { paused: d.state.paused, ...(d.state.note ? { note: d.state.note } : {}) },
      next_runs: d.info.nextActionTimes.map((t) => t.toISOString()),
      created_at: d.info.createdAt.toISOString(),
      temporal: { schedule_id: temporalScheduleId(name), actions_taken: d.info.numActionsTaken, skipped_overlap: d.info.numActionsSkippedOverlap, missed_catchup_window: d.info.numActionsMissedCatchupWindow },
    };
  }

  private async ledgerOf({ description: d, input }: Owned, limit: number): Promise<LedgerEntry[]> {
    const client = this.client();
    const name = input.schedule;
    const scheduleId = temporalScheduleId(name);
    // The counts are as of the describe above; due times after it are Temporal's to act on still.
    const now = this.now();
    const [scheduled, runs, marks] = await Promise.all([
      latestMatchingTimes(client, scheduleId, d.info.createdAt.getTime(), now, limit),
      this.deps.ledger.runs(input.generation),
      this.deps.ledger.marks(input.generation),
    ]);
    const backfills = await Promise.all(
      marks.flatMap((m) => (m.kind === 'backfill' ? [m] : [])).map(async (m) => ({ at_ms: m.at_ms, times: await matchingTimes(client, scheduleId, m.from_ms, m.to_ms) })),
    );
    const facts = {
      scheduled: scheduled.times,
      complete: scheduled.sinceStart,
      backfills,
      runs,
      marks,
      nextActionMs: d.info.nextActionTimes[0]?.getTime(),
      skippedOverlap: d.info.numActionsSkippedOverlap,
      missedCatchup: d.info.numActionsMissedCatchupWindow,
      now,
    };
    return placeRuns(facts, limit, (t) => scheduledJobId(name, t), async (t) => {
      try {
        const w = await client.workflow.getHandle(runWorkflowId(name, t)).describe();
        return { running: w.status.name === 'RUNNING' };
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return undefined;
        throw err;
      }
    });
  }
}

function visibleTo(scheduleOwner: string | null, principal: string | undefined): boolean {
  return principal === undefined || scheduleOwner === null || scheduleOwner === principal;
}

/** Temporal refuses a spec it cannot read (a bad cron or time zone) with INVALID_ARGUMENT: the client's mistake. */
function asInvalid(err: unknown): unknown {
  const code = (err as { code?: number }).code;
  if (code === 3) return new StrandError(ErrorCode.INVALID_REQUEST, `Temporal refused the schedule: ${(err as Error).message}`);
  return err;
}
