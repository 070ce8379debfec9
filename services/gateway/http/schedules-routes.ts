import type { OpenAPIHono } from '@hono/zod-openapi';
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
import { errors, firstQueryValues, jsonBody, jsonReply, readJsonBody, routeTable, serveRoutes } from './openapi/route-kit';

const params = z.object({ name: z.string().describe("The schedule's name. Another principal's schedule answers as an unknown one (404 JOB_NOT_FOUND).") });
const FOUND = [E.JOB_NOT_FOUND, E.UNAVAILABLE];

/** A schedule action: `POST /{name}/<path>`, answering what was done. */
const action = (path: string, id: string, summary: string, description: string, done: string) =>
  ({ post: `/{name}/${path}`, id, summary, description, request: { params }, responses: { 200: jsonReply(scheduleActionSchema, done) }, ...errors(...FOUND) }) as const;

/** The same with a JSON body. */
const actionWithBody = <B extends z.ZodType>(body: B, ...row: Parameters<typeof action>) => {
  const plain = action(...row);
  return { ...plain, middleware: readJsonBody, request: { ...plain.request, body: jsonBody(body) } };
};

const routes = routeTable(['schedules'], {
  create: {
    post: '/',
    id: 'createSchedule',
    summary: 'Schedule a job',
    description:
      'A Temporal Schedule that runs the job spec at every due time of `cron` or `interval` (docs/jobs.md, "Schedules"). Each run is a job `<name>-<yyyymmdd>-<hhmmss>` (its due time, UTC). A name in use answers 400 INVALID_REQUEST.',
    middleware: readJsonBody,
    request: { body: jsonBody(scheduleCreateBodySchema) },
    responses: { 201: jsonReply(scheduleViewSchema, 'Created.') },
    ...errors(E.INVALID_REQUEST, E.UNAVAILABLE),
  },
  list: {
    get: '/',
    id: 'listSchedules',
    summary: "The caller's schedules",
    description: "Read from Temporal's list of schedules, which may show a schedule created a moment ago only a moment later.",
    responses: { 200: jsonReply(scheduleListSchema, 'By name.') },
    ...errors(E.UNAVAILABLE),
  },
  one: {
    get: '/{name}',
    id: 'getSchedule',
    summary: 'One schedule: its spec, state, next runs and latest ledger entries',
    request: { params },
    responses: { 200: jsonReply(scheduleDetailSchema, 'The schedule.') },
    ...errors(...FOUND),
  },
  runs: {
    get: '/{name}/runs',
    id: 'getScheduleRuns',
    summary: "The schedule's ledger",
    description: 'Every due run, oldest first: `ran` (its job and how it ended), `skipped` and why (`overlap`, `paused`, `catchup_missed`), or `pending` (due, Temporal has not acted on it yet).',
    middleware: firstQueryValues,
    request: { params, query: scheduleRunsQuerySchema },
    responses: { 200: jsonReply(scheduleRunsSchema, 'The ledger.') },
    ...errors(E.INVALID_REQUEST, ...FOUND),
  },
  pause: actionWithBody(schedulePauseBodySchema, 'pause', 'pauseSchedule', 'Pause a schedule', 'Runs due while paused are skipped (`paused` in the ledger); a run under way goes on.', 'Paused.'),
  resume: action('resume', 'resumeSchedule', 'Resume a paused schedule', 'Due times from now on run again; those skipped while paused are not made up (backfill them to).', 'Done.'),
  trigger: action('trigger', 'triggerSchedule', 'Run the job now', 'Whatever runs already, paused or not; the ledger lists it as a `trigger`, due when asked for.', 'Done.'),
  backfill: actionWithBody(
    scheduleBackfillBodySchema,
    'backfill',
    'backfillSchedule',
    'Run the due times of a past range',
    "Every due time of the spec in `[from, to]`, now, under the schedule's overlap policy (Temporal's backfill).",
    'Backfilling.',
  ),
  remove: {
    delete: '/{name}',
    id: 'deleteSchedule',
    summary: 'Delete a schedule and its ledger',
    description: 'Runs under way finish; their jobs are not cancelled.',
    request: { params },
    responses: { 200: jsonReply(scheduleActionSchema, 'Deleted.') },
    ...errors(...FOUND),
  },
});

/** `/api/schedules…`: jobs on Temporal Schedules and their ledgers (services/gateway/schedules/). */
export function schedulesRoutes(deps: { temporal: TemporalLink; nc: NatsConnection }): OpenAPIHono {
  const schedules = new ScheduleService({ temporal: deps.temporal, ledger: scheduleLedgerKv(deps.nc), taskQueue: taskQueueFromEnv() });
  type Named = { req: { valid(t: 'param'): { name: string } } };
  const name = (c: Named) => c.req.valid('param').name;
  /** Waits for the action, then answers the schedule's name and `status`. */
  const done = async <S extends z.infer<typeof scheduleActionSchema>['status']>(c: Named, status: S, act: Promise<void>) => {
    await act;
    return { name: name(c), status };
  };

  return serveRoutes(routes, {
    create: async (c) => c.json(await schedules.create(c.req.valid('json'), principalOf(c)), 201),
    list: async (c) => c.json({ schedules: await schedules.list(principalOf(c)) }, 200),
    one: async (c) => c.json(await schedules.get(name(c), principalOf(c)), 200),
    runs: async (c) => c.json(await schedules.runs(name(c), principalOf(c), Number(c.req.valid('query').limit ?? 100)), 200),
    pause: async (c) => c.json(await done(c, 'paused', schedules.pause(name(c), principalOf(c), c.req.valid('json').note)), 200),
    resume: async (c) => c.json(await done(c, 'resumed', schedules.resume(name(c), principalOf(c))), 200),
    trigger: async (c) => c.json(await done(c, 'triggered', schedules.trigger(name(c), principalOf(c))), 200),
    backfill: async (c) => c.json(await done(c, 'backfilling', schedules.backfill(name(c), principalOf(c), c.req.valid('json').from, c.req.valid('json').to)), 200),
    remove: async (c) => c.json(await done(c, 'deleted', schedules.delete(name(c), principalOf(c))), 200),
  });
}
