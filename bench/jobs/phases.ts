import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { jobReportSchema, type JobReport } from '../../contracts/job-report';
import { jobWorkflowId } from '../../contracts/job-workflow';
import { sessionWorkflowId, turnWorkflowId } from '../../contracts/workflow-ids';
import type { TurnWorkflowResult } from '../../contracts/turn-workflow';
import type { Counts } from '../capacity/temporal-actions';
import { BENCH_COMMAND, BENCH_FILE, BENCH_SUMMARY, benchPrompt } from './job-turn-provider';
import { resultOf, workflowTimes, workflowTreeCost } from './workflow-tree';

/**
 * The two phases of a jobs-bench run, each `count` units of the same scripted turn submitted at once:
 * jobs (`POST /api/jobs` on one git repository, each job its own worktree) and the baseline, the same
 * turn as a plain session prompt (no job: no workspace, no deliverable, no report). Each answers, per
 * unit, when it was submitted, when its turn started and when it ended (Temporal's own times), and its
 * Temporal cost over its workflow tree; a unit that did not end as scripted throws.
 */
interface Unit {
  id: string;
  /** Wall clock, epoch ms: the client's submit; the turn's start and the unit's end as Temporal recorded them. */
  submittedAt: number;
  turnStartedAt: number;
  endedAt: number;
  status: string;
  /** The job's own duration from its report (jobs only). */
  reportDurationMs?: number;
  actions: Counts;
  events: Counts;
  workflows: number;
}

export interface PhaseResult {
  units: Unit[];
  /** Performance-clock instants around the phase, for the CPU figures: the first submit and the last end seen. */
  firstSubmit: number;
  lastEnd: number;
}

const MODEL = 'openai/gpt-5-mini';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the gateway's JSON answers, read by the route's known fields
async function call(base: string, method: string, route: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${route}`, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route} answered ${res.status}: ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : undefined;
}

/** Submits every job at once, waits for each job's workflow to end, reads and checks each report. */
export async function runJobs(base: string, client: Client, repo: string, label: string, count: number): Promise<PhaseResult> {
  const ids = Array.from({ length: count }, (_, i) => `${label}-${String(i).padStart(3, '0')}`);
  const firstSubmit = performance.now();
  const submitted = await Promise.all(
    ids.map(async (job_id) => {
      const submittedAt = Date.now();
      await call(base, 'POST', '/api/jobs', { job_id, version: 1, task: { prompt: benchPrompt(job_id), project_path: repo, model: MODEL } });
      return { job_id, submittedAt };
    }),
  );
  await Promise.all(ids.map((id) => resultOf<JobReport>(client, jobWorkflowId(id))));
  const lastEnd = performance.now();
  const units: Unit[] = [];
  const wrong: string[] = [];
  for (const { job_id, submittedAt } of submitted) {
    const report = jobReportSchema.parse(await call(base, 'GET', `/api/jobs/${job_id}/report`));
    const problem = jobProblem(report);
    if (problem) wrong.push(`${job_id}: ${problem}`);
    const job = await workflowTimes(client, jobWorkflowId(job_id));
    const turn = await workflowTimes(client, turnWorkflowId(`job-${job_id}`, 1));
    const cost = await workflowTreeCost(client, jobWorkflowId(job_id));
    units.push({ id: job_id, submittedAt, turnStartedAt: turn.startedAt, endedAt: job.closedAt, status: report.status, reportDurationMs: report.duration_ms, actions: cost.actions, events: cost.events, workflows: cost.workflows.length });
  }
  if (wrong.length > 0) {
    const kept = await keepEvidence(base, client, wrong.map((w) => w.split(':')[0]!));
    throw new Error(`${wrong.length} of ${count} jobs did not end as scripted (their reports, messages and histories: ${kept}):\n${wrong.join('\n')}`);
  }
  return { units, firstSubmit, lastEnd };
}

/** A failed job's report, its session's messages and the histories of its workflows, in a folder that is kept. */
async function keepEvidence(base: string, client: Client, jobIds: string[]): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-jobs-bench-evidence-'));
  for (const id of jobIds) {
    const save = (name: string, value: unknown) => fs.writeFileSync(path.join(dir, `${id}.${name}.json`), JSON.stringify(value, null, 2));
    save('report', await call(base, 'GET', `/api/jobs/${id}/report`).catch((e: Error) => e.message));
    save('messages', await call(base, 'GET', `/api/sessions/job-${id}/messages`).catch((e: Error) => e.message));
    for (const wf of [jobWorkflowId(id), turnWorkflowId(`job-${id}`, 1)]) {
      const history = await client.workflow.getHandle(wf).fetchHistory();
      save(wf.replace(/[^\w-]+/g, '_'), temporal.api.history.v1.History.fromObject(history).toJSON());
    }
  }
  return dir;
}

/** Why a job's report is not the scripted one: succeeded, the file on its verified branch, the command run once with exit 0. */
function jobProblem(report: JobReport): string | undefined {
  if (report.status !== 'succeeded') return `status ${report.status}${report.reason ? ` (${report.reason})` : ''}`;
  if (!report.deliverable?.verified) return 'the deliverable did not verify';
  if (!report.deliverable.files.some((f) => f.path === BENCH_FILE && f.added === 2)) return `no ${BENCH_FILE} with two lines in the deliverable`;
  const commands = report.commands.map((c) => `${c.command} → ${c.exit_code}`);
  if (commands.join() !== `${BENCH_COMMAND} → 0`) return `commands ${JSON.stringify(commands)}`;
  if (report.summary !== BENCH_SUMMARY) return `summary ${JSON.stringify(report.summary)}`;
  return undefined;
}

/**
 * The baseline: `count` sessions, each in a folder of its own (a plain folder: no worktree is what a
 * session needs), allowed to write and run commands without asking (the job's `default: allow`),
 * then every prompt at once.
 */
export async function runBaseline(base: string, client: Client, label: string, count: number): Promise<PhaseResult> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-jobs-bench-baseline-'));
  try {
    // Set up a few at a time (not measured): 50 settings updates at once on a saturated machine can
    // outlast Temporal's 5 s deadline, which the gateway answers 503.
    const sessions: { id: string; sessionId: string; dir: string }[] = [];
    for (let i = 0; i < count; i += 5) {
      const batch = Array.from({ length: Math.min(5, count - i) }, async (_, k) => {
        const id = `${label}-${String(i + k).padStart(3, '0')}`;
        const dir = path.join(root, id);
        fs.mkdirSync(dir);
        fs.writeFileSync(path.join(dir, 'README.md'), '# bench project\n');
        const { session_id } = await call(base, 'POST', '/api/sessions', { project_path: dir, model: MODEL });
        await call(base, 'PATCH', `/api/sessions/${session_id}/settings`, { approval: { always_allow: ['write_file', 'shell_exec'] } });
        return { id, sessionId: String(session_id), dir };
      });
      sessions.push(...(await Promise.all(batch)));
    }
    const firstSubmit = performance.now();
    const submitted = await Promise.all(
      sessions.map(async (s) => {
        const submittedAt = Date.now();
        await call(base, 'POST', `/api/sessions/${s.sessionId}/prompt`, { text: benchPrompt(s.id) });
        return { ...s, submittedAt };
      }),
    );
    const results = await Promise.all(sessions.map((s) => resultOf<TurnWorkflowResult>(client, turnWorkflowId(s.sessionId, 1))));
    const lastEnd = performance.now();
    const units: Unit[] = [];
    const wrong: string[] = [];
    for (const [i, s] of submitted.entries()) {
      const outcome = results[i]!.outcome;
      const written = fs.existsSync(path.join(s.dir, BENCH_FILE)) ? fs.readFileSync(path.join(s.dir, BENCH_FILE), 'utf8') : undefined;
      if (outcome !== 'done' || written !== `bench ${s.id}\nsecond line\n`) wrong.push(`${s.id}: outcome ${outcome}, ${BENCH_FILE} ${JSON.stringify(written)}`);
      const turn = await workflowTimes(client, turnWorkflowId(s.sessionId, 1));
      const cost = await workflowTreeCost(client, sessionWorkflowId(s.sessionId));
      units.push({ id: s.id, submittedAt: s.submittedAt, turnStartedAt: turn.startedAt, endedAt: turn.closedAt, status: outcome, actions: cost.actions, events: cost.events, workflows: cost.workflows.length });
    }
    if (wrong.length > 0) throw new Error(`${wrong.length} of ${count} baseline turns did not end as scripted:\n${wrong.join('\n')}`);
    return { units, firstSubmit, lastEnd };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
