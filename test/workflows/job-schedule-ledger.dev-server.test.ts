import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { connect, type NatsConnection } from 'nats';
import { createScheduleActivities } from '../../activities/schedules';
import type { JobReport } from '../../contracts/job-report';
import { runWorkflowId, scheduleCreateBodySchema, temporalScheduleId, type LedgerEntry } from '../../contracts/job-schedule';
import { jobWorkflowId } from '../../contracts/job-workflow';
import { scheduleLedgerKv } from '../../contracts/schedule-ledger-kv';
import { ScheduleService } from '../../services/gateway/schedules/schedule-service';
import { devServerWorkers, waitFor } from '../harness/dev-server-worker';
import { startTestNats, type TestNats } from '../harness/nats-server';
import { jobStack } from './job-stack';

/**
 * The ledger against the real parts: a Temporal Schedule on the dev server (the time-skipping server
 * implements no Schedules), its runs' workflows and jobs on a real worker with the scripted provider,
 * the ledger in a real nats-server's KV. Real time, scaled down: a run due every 2 s, slow jobs that
 * make the skip policy skip, a paused period, a trigger and a backfill; then every due time must be
 * listed once, as what Temporal really did.
 */
const dev = devServerWorkers();
let nats: TestNats;
let nc: NatsConnection;

beforeAll(async () => {
  nats = await startTestNats();
  nc = await connect({ servers: nats.url });
}, 60_000);
afterAll(async () => {
  await nc?.close();
  await nats?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ms = (iso: string | undefined) => Date.parse(iso!);
/**
 * Temporal's own description of a schedule, asked again when the call runs out of its deadline: the
 * dev server answers DescribeSchedule by querying the schedule's workflow, which on a busy machine (a
 * CI run beside other test files) once took longer than the deadline. What Temporal says is the
 * subject here, not how fast it says it.
 */
async function describeSchedule(name: string) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await dev.env.client.schedule.getHandle(temporalScheduleId(name)).describe();
    } catch (err) {
      if (attempt >= 3 || !/DEADLINE_EXCEEDED/.test(String((err as { cause?: unknown }).cause ?? err))) throw err;
    }
  }
}
const ranAndDone = (e: LedgerEntry) => e.outcome === 'ran' && e.job_status !== 'running' && e.job_status !== 'waiting_for_worker';

test('a schedule every 2 s with slow runs, a paused period, a trigger and a backfill: its ledger lists every due time once, as Temporal acted on it', async () => {
  const taskQueue = `tq-${randomUUID()}`;
  const ledger = scheduleLedgerKv(nc);
  const stack = await jobStack(dev.env, dev.bundle, taskQueue, { extraActivities: createScheduleActivities({ ledger }) });
  const client = dev.env.client;
  const service = new ScheduleService({ temporal: { current: client, unavailableReason: '' }, ledger, taskQueue });
  const name = `ledger-${randomUUID().slice(0, 8)}`;
  // Slow runs first (each job's model call waits 5 s), so due times come while a run still runs.
  const slow = [[{ type: 'delay', ms: 5000 }, { type: 'text', text: 'report: {{user}}' }]];
  const fast = [[{ type: 'text', text: 'report: {{user}}' }]];
  await stack.script('sched', slow);
  try {
    await stack.worker.runUntil(async () => {
      const spec = { version: 1, task: { prompt: 'check the repository', project_path: stack.repo, model: 'scripted/sched' } };
      const created = await service.create(scheduleCreateBodySchema.parse({ name, spec, interval: '2s', notes: true }), undefined);
      const createdMs = ms(created.created_at);
      const read = () => service.runs(name, undefined, 1000);

      await waitFor(read, (r) => r.runs.filter(ranAndDone).length >= 2 && r.runs.filter((e) => e.reason === 'overlap').length >= 2, 90_000);
      await stack.script('sched', fast);
      // A run that started after the change (fast) has finished: the schedule runs every due time now.
      const switched = Date.now();
      await waitFor(read, (r) => r.runs.some((e) => ranAndDone(e) && ms(e.started_at) > switched), 60_000);

      const pauseAsked = Date.now();
      await service.pause(name, undefined, 'quiet hours');
      const pauseDone = Date.now();
      // A trigger runs while paused.
      await service.trigger(name, undefined);
      await waitFor(read, (r) => r.runs.some((e) => e.kind === 'trigger' && e.outcome === 'ran'), 60_000);
      await sleep(Math.max(0, 7_000 - (Date.now() - pauseDone)));
      const resumeAsked = Date.now();
      await service.resume(name, undefined);
      const resumeDone = Date.now();
      await waitFor(read, (r) => r.runs.filter((e) => ranAndDone(e) && ms(e.due_at) > resumeDone).length >= 2, 60_000);

      const backfillFrom = Math.ceil((createdMs - 20_000) / 2000) * 2000;
      await service.backfill(name, undefined, new Date(backfillFrom).toISOString(), new Date(backfillFrom + 4000).toISOString());
      // Under the skip policy a backfill's times run only while nothing else runs: each is ran or skipped for overlap.
      await waitFor(read, (r) => r.runs.some((e) => e.kind === 'trigger' && ranAndDone(e)) && r.runs.filter((e) => e.kind === 'backfill' && e.outcome !== 'pending').length === 3, 60_000);

      // Frozen: paused again, every run finished, nothing pending.
      const finalPauseAsked = Date.now();
      await service.pause(name, undefined, 'end of the test');
      await waitFor(read, (r) => r.counts.pending === 0 && r.runs.every((e) => e.outcome !== 'ran' || ranAndDone(e)), 60_000);
      // Once more, timed: the due times listed are those up to a moment of the read (a read may take seconds here).
      const readStart = Date.now();
      const { runs } = await read();
      const readEnd = Date.now();
      const description = await describeSchedule(name);

      // Each due time once: the spec's (every 2 s since the creation), the backfill's three, and the trigger.
      const dues = runs.map((e) => ms(e.due_at));
      expect(new Set(dues).size).toBe(dues.length);
      const scheduled = runs.filter((e) => e.kind === 'scheduled').map((e) => ms(e.due_at));
      const expected: number[] = [];
      for (let t = Math.floor(createdMs / 2000) * 2000 + 2000; t <= readEnd; t += 2000) expected.push(t);
      expect(expected.slice(0, scheduled.length)).toEqual(scheduled);
      expect(scheduled.length).toBeGreaterThanOrEqual(expected.filter((t) => t <= readStart).length);
      expect(runs.every((e) => e.outcome !== 'pending')).toBe(true);
      expect(runs.filter((e) => e.kind === 'backfill').map((e) => ms(e.due_at))).toEqual([backfillFrom, backfillFrom + 2000, backfillFrom + 4000]);
      expect(runs.filter((e) => e.kind === 'trigger')).toHaveLength(1);
      expect(runs.filter((e) => e.kind === 'backfill').every((e) => e.outcome === 'ran' || e.reason === 'overlap')).toBe(true);

      // What Temporal did, due time by due time: a run's workflow exists exactly for the ran ones, and its job ended as the ledger says.
      for (const e of runs) {
        const runId = e.kind === 'trigger' ? undefined : runWorkflowId(name, ms(e.due_at));
        if (e.outcome === 'ran') {
          expect(e.job_id).toBeDefined();
          const report = (await client.workflow.getHandle(jobWorkflowId(e.job_id!)).result()) as JobReport;
          expect(report.status).toBe(e.job_status);
          expect(report.status).toBe('succeeded');
        } else if (runId) {
          await expect(client.workflow.getHandle(runId).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
        }
      }
      // Skipped for overlap: as many as Temporal counted, each while a run was under way.
      const overlap = runs.filter((e) => e.reason === 'overlap');
      expect(overlap.length).toBeGreaterThanOrEqual(2);
      expect(overlap.length).toBe(description.info.numActionsSkippedOverlap);
      const ran = runs.filter((e) => e.outcome === 'ran');
      // (Temporal learns a run ended a moment late: a second's leeway. A backfill's were skipped for what ran when it was asked.)
      const unexplained = overlap.filter((e) => e.kind === 'scheduled' && !ran.some((r) => ms(r.started_at) <= ms(e.due_at) + 1000 && ms(r.finished_at) >= ms(e.due_at) - 1000));
      expect(unexplained).toEqual([]);
      // Paused: every due time well inside the pause, and none outside the pauses.
      const paused = runs.filter((e) => e.reason === 'paused').map((e) => ms(e.due_at));
      const triggeredAt = ms(runs.find((e) => e.kind === 'trigger')!.due_at);
      expect(triggeredAt > pauseDone && triggeredAt <= resumeDone).toBe(true);
      for (const t of expected.filter((t) => t > pauseDone && t < resumeAsked)) expect(paused).toContain(t);
      for (const t of paused) expect((t >= pauseAsked && t <= resumeDone) || t >= finalPauseAsked).toBe(true);
      expect(paused.filter((t) => t < resumeDone).length).toBeGreaterThanOrEqual(3);
      expect(runs.every((e) => e.outcome !== 'skipped' || e.reason === 'overlap' || e.reason === 'paused')).toBe(true);

      // Notes between runs: the second run's job was told what the first one reported.
      const [first, second] = ran.filter((e) => e.kind === 'scheduled');
      const secondReport = (await client.workflow.getHandle(jobWorkflowId(second!.job_id!)).result()) as JobReport;
      expect(secondReport.summary).toContain(`Notes from this schedule's previous run (due ${first!.due_at}, job ${first!.job_id}, succeeded)`);
      expect(secondReport.summary).toContain('Report only what changed since that run.');

      const { numActionsTaken, numActionsSkippedOverlap, numActionsMissedCatchupWindow } = description.info;
      console.log(JSON.stringify({ due: runs.length, ran: ran.length, overlap: overlap.length, paused: paused.length, temporal: { numActionsTaken, numActionsSkippedOverlap, numActionsMissedCatchupWindow } }));
      await service.delete(name, undefined);
    });
  } finally {
    await stack.cleanup();
  }
}, 600_000);

test('pause on failure: a run whose job fails pauses the schedule (Temporal), and the due times after it are skipped as paused', async () => {
  const taskQueue = `tq-${randomUUID()}`;
  const ledger = scheduleLedgerKv(nc);
  const stack = await jobStack(dev.env, dev.bundle, taskQueue, { extraActivities: createScheduleActivities({ ledger }) });
  const client = dev.env.client;
  const service = new ScheduleService({ temporal: { current: client, unavailableReason: '' }, ledger, taskQueue });
  const name = `fails-${randomUUID().slice(0, 8)}`;
  await stack.script('sched-fail', [[{ type: 'error', kind: 'permanent', status: 400, message: 'scripted: refused' }]]);
  try {
    await stack.worker.runUntil(async () => {
      const spec = { version: 1, task: { prompt: 'fail', project_path: stack.repo, model: 'scripted/sched-fail' } };
      await service.create(scheduleCreateBodySchema.parse({ name, spec, interval: '2s', pause_on_failure: true }), undefined);
      const read = () => service.runs(name, undefined, 1000);
      // Temporal pauses the schedule once it learns the run failed; three due times later, the ledger says why they did not run.
      const after = await waitFor(read, (r) => r.runs.filter((e) => e.reason === 'paused').length >= 3 && r.counts.pending === 0, 90_000);
      const shown = await service.get(name, undefined);
      expect(shown.state.paused).toBe(true);
      const failed = after.runs.filter((e) => e.outcome === 'ran');
      expect(failed.length).toBeGreaterThanOrEqual(1);
      expect(failed.every((e) => e.job_status === 'failed')).toBe(true);
      const firstFailure = failed[0]!;
      // Everything after the first failed run's end is paused (a due time before Temporal paused may still have been skipped for overlap or run).
      const later = after.runs.filter((e) => ms(e.due_at) > ms(firstFailure.finished_at) + 2000);
      expect(later.length).toBeGreaterThanOrEqual(2);
      expect(later.every((e) => e.reason === 'paused' || e.outcome === 'ran')).toBe(true);
      expect(after.runs.filter((e) => e.outcome === 'skipped' && e.reason === 'overlap').length).toBe((await describeSchedule(name)).info.numActionsSkippedOverlap);
      await service.delete(name, undefined);
    });
  } finally {
    await stack.cleanup();
  }
}, 300_000);
