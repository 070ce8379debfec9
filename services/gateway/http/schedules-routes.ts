import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { NatsConnection } from 'nats';
import { z } from 'zod';
import { ErrorCode as E } from '../../../contracts/errors';
import {
  scheduleActionSchema,
  scheduleBackfillBodySchema,
  scheduleCreateBodySchema,
  scheduleDetailSchema,
  scheduleListSchema,
  schedulePauseBodySchema,
  scheduleRunsQuerySchema,
  scheduleRunsSchema,
  scheduleViewSchema,
} from '../../../contracts/job-schedule';
import { scheduleLedgerKv } from '../../../contracts/schedule-ledger-kv';
import { taskQueueFromEnv } from '../../../contracts/task-queues';
import { ScheduleService } from '../schedules/schedule-service';
import type { TemporalLink } from '../temporal/temporal-link';
import { principalOf } from './auth-middleware';
import { errors, firstQueryValues, jsonBody, jsonReply, openApiApp, readJsonBody } from './openapi/route-kit';

const tags = ['schedules'];
const params = z.object({ name: z.string().describe("The schedule's name. Another principal's schedule answers as an unknown one (404 JOB_NOT_FOUND).") });
const FOUND = [E.JOB_NOT_FOUND, E.UNAVAILABLE];

const create = createRoute({
  method: 'post',
  path: '/',
  operationId: 'createSchedule',
  summary: 'Schedule a job',
  description:
    'A Temporal Schedule that runs the job spec at every due time of `cron` or `interval` (docs/jobs.md, "Schedules"). Each run is a job `<name>-<yyyymmdd>-<hhmmss>` (its due time, UTC). A name in use answers 400 INVALID_REQUEST.',
  tags,
  middleware: readJsonBody,
  request: { body: jsonBody(scheduleCreateBodySchema) },
  responses: { 201: jsonReply(scheduleViewSchema, 'Created.') },
  ...errors(E.INVALID_REQUEST, E.UNAVAILABLE),
});

const list = createRoute({
  method: 'get',
  path: '/',
  operationId: 'listSchedules',
  summary: "The caller's schedules",
  description: "Read from Temporal's list of schedules, which may show a schedule created a moment ago only a moment later.",
  tags,
  responses: { 200: jsonReply(scheduleListSchema, 'By name.') },
  ...errors(E.UNAVAILABLE),
});

const one = createRoute({
  method: 'get',
  path: '/{name}',
  operationId: 'getSchedule',
  summary: 'One schedule: its spec, state, next runs and latest ledger entries',
  tags,
  request: { params },
  responses: { 200: jsonReply(scheduleDetailSchema, 'The schedule.') },
  ...errors(...FOUND),
});

const runs = createRoute({
  method: 'get',
  path: '/{name}/runs',
  operationId: 'getScheduleRuns',
  summary: "The schedule's ledger",
  description: 'Every due run, oldest first: `ran` (its job and how it ended), `skipped` and why (`overlap`, `paused`, `catchup_missed`), or `pending` (due, Temporal has not acted on it yet).',
  tags,
  middleware: firstQueryValues,
  request: { params, query: scheduleRunsQuerySchema },
  responses: { 200: jsonReply(scheduleRunsSchema, 'The ledger.') },
  ...errors(E.INVALID_REQUEST, ...FOUND),
});

/** A schedule action without a body. */
const action = (path: string, operationId: string, summary: string, description: string) =>
  createRoute({ method: 'post', path: `/{name}/${path}`, operationId, summary, description, tags, request: { params }, responses: { 200: jsonReply(scheduleActionSchema, 'Done.') }, ...errors(...FOUND) });

const pause = createRoute({
  method: 'post',
  path: '/{name}/pause',
  operationId: 'pauseSchedule',
  summary: 'Pause a schedule',
  description: 'Runs due while paused are skipped (`paused` in the ledger); a run under way goes on.',
  tags,
  middleware: readJsonBody,
  request: { params, body: jsonBody(schedulePauseBodySchema) },
  responses: { 200: jsonReply(scheduleActionSchema, 'Paused.') },
  ...errors(...FOUND),
});
const resume = action('resume', 'resumeSchedule', 'Resume a paused schedule', 'Due times from now on run again; those skipped while paused are not made up (backfill them to).');
const trigger = action('trigger', 'triggerSchedule', 'Run the job now', 'Whatever runs already, paused or not; the ledger lists it as a `trigger`, due when asked for.');
const backfill = createRoute({
  method: 'post',
  path: '/{name}/backfill',
  operationId: 'backfillSchedule',
  summary: 'Run the due times of a past range',
  description: "Every due time of the spec in `[from, to]`, now, under the schedule's overlap policy (Temporal's backfill).",
  tags,
  middleware: readJsonBody,
  request: { params, body: jsonBody(scheduleBackfillBodySchema) },
  responses: { 200: jsonReply(scheduleActionSchema, 'Backfilling.') },
  ...errors(...FOUND),
});

const remove = createRoute({
  method: 'delete',
  path: '/{name}',
  operationId: 'deleteSchedule',
  summary: 'Delete a schedule and its ledger',
  description: 'Runs under way finish; their jobs are not cancelled.',
  tags,
  request: { params },
  responses: { 200: jsonReply(scheduleActionSchema, 'Deleted.') },
  ...errors(...FOUND),
});

/** `/api/schedules…`: jobs on Temporal Schedules and their ledgers (services/gateway/schedules/). */
export function schedulesRoutes(deps: { temporal: TemporalLink; nc: NatsConnection }): OpenAPIHono {
  const app = openApiApp();
  const schedules = new ScheduleService({ temporal: deps.temporal, ledger: scheduleLedgerKv(deps.nc), taskQueue: taskQueueFromEnv() });
  const name = (c: { req: { valid(t: 'param'): { name: string } } }) => c.req.valid('param').name;

  app.openapi(create, async (c) => c.json(await schedules.create(c.req.valid('json'), principalOf(c)), 201));
  app.openapi(list, async (c) => c.json({ schedules: await schedules.list(principalOf(c)) }, 200));
  app.openapi(one, async (c) => c.json(await schedules.get(name(c), principalOf(c)), 200));
  app.openapi(runs, async (c) => c.json(await schedules.runs(name(c), principalOf(c), Number(c.req.valid('query').limit ?? 100)), 200));
  app.openapi(pause, async (c) => {
    await schedules.pause(name(c), principalOf(c), c.req.valid('json').note);
    return c.json({ name: name(c), status: 'paused' as const }, 200);
  });
  app.openapi(resume, async (c) => {
    await schedules.resume(name(c), principalOf(c));
    return c.json({ name: name(c), status: 'resumed' as const }, 200);
  });
  app.openapi(trigger, async (c) => {
    await schedules.trigger(name(c), principalOf(c));
    return c.json({ name: name(c), status: 'triggered' as const }, 200);
  });
  app.openapi(backfill, async (c) => {
    const body = c.req.valid('json');
    await schedules.backfill(name(c), principalOf(c), body.from, body.to);
    return c.json({ name: name(c), status: 'backfilling' as const }, 200);
  });
  app.openapi(remove, async (c) => {
    await schedules.delete(name(c), principalOf(c));
    return c.json({ name: name(c), status: 'deleted' as const }, 200);
  });
  return app;
}
