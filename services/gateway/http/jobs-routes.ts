import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { z } from 'zod';
import { ErrorCode as E, StrandError } from '../../../contracts/errors';
import { turnCancelledSchema, turnSchema } from '../../../contracts/http-replies';
import * as J from '../../../contracts/job-http';
import { jobReportSchema } from '../../../contracts/job-report';
import { renderJobReportMarkdown } from '../../../contracts/job-report-markdown';
import { LOCAL_PRINCIPAL } from '../auth/tokens';
import type { JobService } from '../jobs/job-service';
import { jobIdForKey } from '../jobs/start-job';
import type { RunningTurns } from '../sessions/running-turns';
import { parseJobId as parseTurnId } from '../temporal/jobs';
import { principalOf } from './auth-middleware';
import { errors, firstQueryValues, jsonBody, jsonReply, readByHandler, readJsonBody, routeTable, serveRoutes } from './openapi/route-kit';

const TURN_FORM = 'Deprecated: a turn\'s id (`session:<id>:turn:<n>`) answers as `/api/turns/{id}` does, with `Deprecation: true` and a `Link` to it; gone in the next release.';
const params = z.object({ id: z.string().describe(`The job's id. Another principal's job answers 404 JOB_NOT_FOUND. ${TURN_FORM}`) });
const jobParams = z.object({ id: z.string().describe("The job's id. Another principal's job answers 404 JOB_NOT_FOUND.") });
const escalationParams = z.object({ id: z.string().describe("The job's id."), tool_call_id: z.string().describe('The escalated call, as `escalations[].tool_call_id` of `GET /api/jobs/{id}` names it.') });
const idempotencyKey = readByHandler('header', 'Idempotency-Key', z.string().min(1).max(200), 'The same key twice starts one job: the key is the job id when it is a valid one (a lowercase UUID is), else `k-` and a digest of it. A `job_id` in the body wins.');
const reportFormat = readByHandler('query', 'format', z.enum(['json', 'markdown']), '`markdown` answers the report as a markdown document (as `Accept: text/markdown` does); default JSON.');

const routes = routeTable(['jobs'], {
  start: {
    post: '/',
    id: 'startJob',
    summary: 'Start an unattended job',
    description:
      "The body is the job's spec (docs/jobs.md), strict at every depth: a bad key answers 400 naming its path. Answered once Temporal holds the job's workflow. The project path is the worker's business: a folder it cannot use makes a job that reports `failed`, saying why.",
    middleware: readJsonBody,
    request: { body: jsonBody(J.jobStartBodySchema) },
    parameters: [idempotencyKey],
    responses: { 202: jsonReply(J.jobStartedSchema, 'Started; owned by the caller.'), 200: jsonReply(J.jobStartedSchema, 'This id already names a job with the same spec: that job.') },
    ...errors(E.JOB_EXISTS, E.UNAVAILABLE),
  },
  list: {
    get: '/',
    id: 'listJobs',
    summary: "The caller's jobs",
    middleware: firstQueryValues,
    request: { query: J.jobListQuerySchema },
    responses: { 200: jsonReply(J.jobListSchema, 'Newest first; an ended job with its report\'s status.') },
    ...errors(E.INVALID_REQUEST, E.UNAVAILABLE),
  },
  one: {
    get: '/{id}',
    id: 'getJob',
    summary: 'One job: its progress, or its report',
    request: { params },
    responses: { 200: jsonReply(z.union([J.jobViewSchema, turnSchema.meta({ deprecated: true, description: TURN_FORM })]), 'The job.') },
    ...errors(E.JOB_NOT_FOUND, E.UNAVAILABLE),
  },
  report: {
    get: '/{id}/report',
    id: 'getJobReport',
    summary: "An ended job's report",
    request: { params: z.object({ id: z.string().describe("The job's id.") }) },
    parameters: [reportFormat],
    responses: { 200: { description: 'The report: JSON, or markdown with `Accept: text/markdown` or `?format=markdown`.', content: { 'application/json': { schema: jobReportSchema }, 'text/markdown': { schema: z.string() } } } },
    ...errors(E.INVALID_REQUEST, E.JOB_NOT_FOUND, E.JOB_NOT_FINISHED, E.UNAVAILABLE),
  },
  cancel: {
    post: '/{id}/cancel',
    id: 'cancelJob',
    summary: 'Cancel a job',
    description: "Answers once Temporal accepted the cancel: the job aborts its running turn, answers its waiting escalations, collects what was done and reports `cancelled`. An ended job: `not_running`.",
    request: { params },
    responses: { 200: jsonReply(z.union([J.jobCancelReplySchema, turnCancelledSchema.meta({ deprecated: true, description: TURN_FORM })]), 'Cancel requested, or not running.') },
    ...errors(E.JOB_NOT_FOUND, E.UNAVAILABLE),
  },
  answer: {
    post: '/{id}/escalations/{tool_call_id}',
    id: 'answerJobEscalation',
    summary: "Answer a job's escalated tool call",
    description: "Signals the job with the caller's principal as the answerer (`local` with auth off); the report names them. A call the job never made: 404 INVALID_TOOL_CALL; one decided already: 409 JOB_ESCALATION_ANSWERED.",
    middleware: readJsonBody,
    request: { params: escalationParams, body: jsonBody(J.escalationAnswerBodySchema) },
    responses: { 200: jsonReply(J.escalationAnsweredSchema, 'The answer was delivered.') },
    ...errors(E.JOB_NOT_FOUND, E.INVALID_TOOL_CALL, E.JOB_ESCALATION_ANSWERED, E.UNAVAILABLE),
  },
  resume: {
    post: '/{id}/resume',
    id: 'resumeJob',
    summary: 'Resume a job that needs a person',
    description:
      "A job that reported `needs_human` (an escalation nobody answered, `on_timeout: abort`) waits `policy.escalation.resume_wait_s` for this: the caller's decision for the call it stopped at, signalled with the caller's principal (`local` with auth off). The work goes on where it stopped; the final report's `resumed` names who and when. A job not waiting: 409 JOB_NOT_WAITING.",
    middleware: readJsonBody,
    request: { params: jobParams, body: jsonBody(J.jobResumeBodySchema) },
    responses: { 200: jsonReply(J.jobResumedSchema, 'The resume was delivered.') },
    ...errors(E.JOB_NOT_FOUND, E.JOB_NOT_WAITING, E.UNAVAILABLE),
  },
});

/** A deprecated turn-form id: the headers that say so and where it went. */
function deprecatedTurn(c: Context, id: string, suffix = ''): void {
  c.header('Deprecation', 'true');
  c.header('Link', `</api/turns/${encodeURIComponent(id)}${suffix}>; rel="successor-version"`);
}

/** The old turn routes answered JOB_NOT_FOUND: their deprecated form still does. */
async function asBefore<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof StrandError && err.code === E.TURN_NOT_FOUND) throw new StrandError(E.JOB_NOT_FOUND, err.message.replace(/^no turn/, 'no job'), err.details);
    throw err;
  }
}

/** `/api/jobs…`: unattended jobs (docs/jobs.md); for one release also the turn routes' old answers for a turn-form id. */
export function jobsRoutes(deps: { jobs: JobService; turns: RunningTurns }): OpenAPIHono {
  return serveRoutes(routes, {
    start: async (c) => {
      const { job_id, ...spec } = c.req.valid('json');
      const key = c.req.header('Idempotency-Key')?.trim();
      const id = job_id ?? (key ? jobIdForKey(key) : undefined);
      const { started, job } = await deps.jobs.start(spec, principalOf(c), id);
      return started ? c.json(job, 202) : c.json(job, 200);
    },
    list: async (c) => {
      const principal = principalOf(c);
      const [jobs, running_turns] = await Promise.all([deps.jobs.list(principal, c.req.valid('query')), deps.turns.list(principal)]);
      return c.json({ jobs, running_turns }, 200);
    },
    one: async (c) => {
      const { id } = c.req.valid('param');
      if (parseTurnId(id)) {
        deprecatedTurn(c, id);
        return c.json(await asBefore(() => deps.turns.get(id, principalOf(c))), 200);
      }
      return c.json(await deps.jobs.get(id, principalOf(c)), 200);
    },
    report: async (c) => {
      const format = c.req.query('format');
      if (format !== undefined && format !== 'json' && format !== 'markdown') throw new StrandError(E.INVALID_REQUEST, `format must be json or markdown, not ${JSON.stringify(format)}`);
      const wantsMarkdown = format === 'markdown' || (format === undefined && /\btext\/markdown\b/.test(c.req.header('Accept') ?? ''));
      const body = await deps.jobs.report(c.req.valid('param').id, principalOf(c));
      if (wantsMarkdown) return c.body(renderJobReportMarkdown(body), 200, { 'Content-Type': 'text/markdown; charset=utf-8' });
      return c.json(body, 200);
    },
    cancel: async (c) => {
      const { id } = c.req.valid('param');
      if (parseTurnId(id)) {
        deprecatedTurn(c, id, '/cancel');
        return c.json(await asBefore(() => deps.turns.cancel(id, principalOf(c))), 200);
      }
      return c.json(await deps.jobs.cancel(id, principalOf(c)), 200);
    },
    answer: async (c) => {
      const { id, tool_call_id } = c.req.valid('param');
      const principal = principalOf(c);
      return c.json(await deps.jobs.answer(id, tool_call_id, c.req.valid('json'), principal, principal ?? LOCAL_PRINCIPAL), 200);
    },
    resume: async (c) => {
      const principal = principalOf(c);
      return c.json(await deps.jobs.resume(c.req.valid('param').id, c.req.valid('json'), principal, principal ?? LOCAL_PRINCIPAL), 200);
    },
  });
}
