import { jobListQuerySchema } from '../../../../../contracts/job-http';
import { renderJobReportMarkdown } from '../../../../../contracts/job-report-markdown';
import { LOCAL_PRINCIPAL } from '../../../auth/tokens';
import { listJobDigests } from '../../../jobs/job-digest';
import type { EdnMap, EdnValue } from '../../edn-value';
import { EdnErrorCode, EdnOpError } from '../../protocol';
import type { OpContext, OpHandler } from '../op-context';
import { optInt, optText, text } from '../params';

/**
 * Unattended jobs over EDN (docs/edn.md, "Jobs"; docs/jobs.md): list the connection's principal's
 * jobs, read one and its report, watch one (its session `job-<id>` becomes the focus, as
 * `switch_session` does: its transcript, then its events as they come), cancel one, answer an
 * escalated call. Every op goes through the gateway's JobService, so a job is authorized as over
 * HTTP: another principal's job is `request/not-found`, as an unknown one.
 */

/** `tool_call_id` → `:tool-call-id`: JSON shapes (contracts/job-http.ts, job-report.ts) as EDN maps, whose keys are all declared names. */
function jsonToEdn(v: unknown): EdnValue {
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) return v.map(jsonToEdn);
  if (typeof v === 'object') {
    const out: EdnMap = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (x !== undefined) out[k.replace(/_/g, '-')] = jsonToEdn(x);
    return out;
  }
  return v as EdnValue;
}

const jobIdOf = (ctx: OpContext) => text(ctx.params, 'job-id').trim();

/** `:status` of list_jobs: `running` or a report status, as `GET /api/jobs?status=` takes it. */
function listFilter(ctx: OpContext) {
  const status = optText(ctx.params, 'status');
  const limit = optInt(ctx.params, 'limit');
  const parsed = jobListQuerySchema.safeParse({ ...(status !== undefined ? { status } : {}), ...(limit !== undefined ? { limit } : {}) });
  if (!parsed.success) throw new EdnOpError(EdnErrorCode.invalidParams, 'list_jobs takes :status (running, succeeded, partial, failed, cancelled, needs_human, terminated, timed_out) and :limit (1–200)');
  return parsed.data;
}

export const jobOps: Record<string, OpHandler> = {
  list_jobs: async (ctx) => ({ jobs: jsonToEdn(await listJobDigests(ctx.jobs, ctx.principal, listFilter(ctx))) }),

  get_job: async (ctx) => ({ job: jsonToEdn(await ctx.jobs.get(jobIdOf(ctx), ctx.principal)) }),

  /** The report of an ended job (`runtime/failed` with `:strand-code "JOB_NOT_FINISHED"` while it runs); `:format "markdown"` as one text. */
  get_job_report: async (ctx): Promise<EdnMap> => {
    const format = optText(ctx.params, 'format') ?? 'edn';
    if (format !== 'edn' && format !== 'markdown') throw new EdnOpError(EdnErrorCode.invalidParams, 'get_job_report :format must be "edn" or "markdown"');
    const report = await ctx.jobs.report(jobIdOf(ctx), ctx.principal);
    return format === 'markdown' ? { markdown: renderJobReportMarkdown(report) } : { report: jsonToEdn(report) };
  },

  /** Focuses the job's session: `session/resumed`, `session/rehydrated` and the snapshots, then its events until it ends. */
  watch_job: async (ctx) => {
    const job = await ctx.jobs.get(jobIdOf(ctx), ctx.principal);
    await ctx.navigate(job.session_id);
    return { 'session-id': job.session_id, job: jsonToEdn(job) };
  },

  cancel_job: async (ctx) => jsonToEdn(await ctx.jobs.cancel(jobIdOf(ctx), ctx.principal)) as EdnMap,

  /** The connection's principal (`local` with auth off) answers: the report names them. */
  answer_job_escalation: async (ctx) => {
    const decision = text(ctx.params, 'decision');
    if (decision !== 'allow' && decision !== 'deny') throw new EdnOpError(EdnErrorCode.invalidParams, 'answer_job_escalation :decision must be "allow" or "deny"');
    const reason = optText(ctx.params, 'reason');
    const answered = await ctx.jobs.answer(jobIdOf(ctx), text(ctx.params, 'tool-call-id'), { decision, ...(reason ? { reason } : {}) }, ctx.principal, ctx.principal ?? LOCAL_PRINCIPAL);
    return jsonToEdn(answered) as EdnMap;
  },
};
