import fs from 'node:fs';
import type { JobFacts, JobStarted, JobView } from '../../contracts/job-http';
import type { JobsCommand } from './job-args';
import { say, sayError } from './safe-output';
import { gatewayApi, gatewayUrl, type GatewayApi } from './gateway-api';

/** How often `strand job run --wait` asks how the job is doing. */
const POLL_MS = 1_000;

type JobCommand = Extract<JobsCommand, { command: 'job' }>;

const api = () => gatewayApi(30_000);

const ago = (ms: number) => {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  return s < 120 ? `${s}s` : s < 7200 ? `${Math.round(s / 60)}m` : s < 172_800 ? `${Math.round(s / 3600)}h` : `${Math.round(s / 86_400)}d`;
};

/** `strand jobs [list] [--status S]`: the caller's jobs, newest first. */
export async function jobs(cmd: Extract<JobsCommand, { command: 'jobs' }>): Promise<void> {
  const query = cmd.status ? `?status=${cmd.status}` : '';
  const { jobs: list } = await api().call<{ jobs: JobFacts[] }>('GET', `/api/jobs${query}`);
  if (list.length === 0) return say(cmd.status ? `no ${cmd.status} jobs` : 'no jobs');
  say(['job'.padEnd(36), 'status'.padEnd(12), ' since', 'task'].join('  '));
  for (const j of list) say([j.job_id.padEnd(36), j.status.padEnd(12), ago(j.started_at).padStart(6), j.title].join('  '));
}

/** `strand job …`; resolves with the process's exit code (`run --wait`: 0 only for a job that succeeded). */
export async function job(cmd: JobCommand): Promise<number> {
  const client = api();
  const at = (id: string) => `/api/jobs/${encodeURIComponent(id)}`;
  switch (cmd.action) {
    case 'run': {
      const spec = readSpec(cmd.spec);
      const started = await client.call<JobStarted>('POST', '/api/jobs', { ...spec, ...(cmd.jobId !== undefined ? { job_id: cmd.jobId } : {}) });
      say(`job ${started.job_id} started`);
      say(`  follow it:     strand job show ${started.job_id}   (its session's events: GET ${gatewayUrl()}/api/sessions/${started.session_id}/events)`);
      say(`  its report:    strand job report ${started.job_id}   (once it has ended)`);
      if (!cmd.wait) return 0;
      const ended = await waitForEnd(client, started.job_id);
      say(await client.text(`${at(started.job_id)}/report?format=markdown`));
      return ended.status === 'succeeded' ? 0 : 1;
    }
    case 'show':
      say(describe(await client.call<JobView>('GET', at(cmd.jobId))));
      return 0;
    case 'report':
      if (cmd.json) say(JSON.stringify(await client.call('GET', `${at(cmd.jobId)}/report`), null, 2));
      else say((await client.text(`${at(cmd.jobId)}/report?format=markdown`)).trimEnd());
      return 0;
    case 'cancel': {
      const { status } = await client.call<{ status: string }>('POST', `${at(cmd.jobId)}/cancel`, {});
      say(status === 'cancel_requested' ? `cancel requested: job ${cmd.jobId} stops its work, collects what was done and reports cancelled` : `job ${cmd.jobId} is not running`);
      return 0;
    }
    case 'answer': {
      const body = { decision: cmd.decision, ...(cmd.reason !== undefined ? { reason: cmd.reason } : {}) };
      const answered = await client.call<{ by: string }>('POST', `${at(cmd.jobId)}/escalations/${encodeURIComponent(cmd.toolCallId)}`, body);
      say(`${cmd.decision === 'allow' ? 'allowed' : 'denied'} ${cmd.toolCallId} of job ${cmd.jobId} (answered by ${answered.by})`);
      return 0;
    }
    case 'resume': {
      const body = { decision: cmd.decision, ...(cmd.message !== undefined ? { message: cmd.message } : {}) };
      const resumed = await client.call<{ tool_call_id: string; by: string }>('POST', `${at(cmd.jobId)}/resume`, body);
      say(`resumed job ${cmd.jobId}: ${cmd.decision === 'allow' ? 'allowed' : 'denied'} ${resumed.tool_call_id} (by ${resumed.by}); the work goes on`);
      return 0;
    }
  }
}

/** The spec's JSON from a file or stdin (`-`), refused with a readable reason before anything is sent. */
function readSpec(from: string): Record<string, unknown> {
  let text: string;
  try {
    text = fs.readFileSync(from === '-' ? 0 : from, 'utf8');
  } catch (err) {
    throw new Error(`cannot read the spec ${from === '-' ? 'from stdin' : from}: ${(err as Error).message}`);
  }
  let spec: unknown;
  try {
    spec = JSON.parse(text);
  } catch (err) {
    throw new Error(`the spec ${from === '-' ? 'on stdin' : from} is not JSON: ${(err as Error).message}`);
  }
  if (!spec || typeof spec !== 'object' || Array.isArray(spec)) throw new Error('the spec must be a JSON object (docs/jobs.md, "The spec")');
  return spec as Record<string, unknown>;
}

/** Follows the job until it ends; each escalated call that starts waiting is announced once (on stderr), with how to answer it. */
async function waitForEnd(client: GatewayApi, jobId: string): Promise<JobView> {
  const announced = new Set<string>();
  let phase: string | undefined;
  for (;;) {
    const view = await client.call<JobView>('GET', `/api/jobs/${encodeURIComponent(jobId)}`);
    if (view.status !== 'running') return view;
    if (view.progress && view.progress.phase !== phase) sayError(`[job ${jobId}] ${(phase = view.progress.phase)}`);
    for (const e of view.progress?.escalations ?? []) {
      if (announced.has(e.tool_call_id)) continue;
      announced.add(e.tool_call_id);
      sayError(`[job ${jobId}] ${e.tool} waits for your answer (${e.rule_source}): strand job answer ${jobId} ${e.tool_call_id} allow|deny`);
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** `strand job show`: the job in a few lines. */
function describe(view: JobView): string {
  const lines = [`job ${view.job_id}: ${view.status}`, `  task:     ${view.title}`, `  project:  ${view.project_path}`, `  model:    ${view.model}`, `  session:  ${view.session_id}`, `  started:  ${new Date(view.started_at).toISOString()}`];
  if (view.closed_at !== null) lines.push(`  ended:    ${new Date(view.closed_at).toISOString()}`);
  const p = view.progress;
  if (p) {
    lines.push(`  phase:    ${p.phase}${p.turn_id ? ` (turn ${p.turn_id}${p.step !== null ? `, step ${p.step}` : ''})` : ''}`, `  spent:    ${p.steps} steps, ${p.tokens} tokens, $${p.cost_usd.toFixed(4)}`);
    const stoppedAt = p.needs_human?.tool_call_id;
    for (const e of p.escalations.filter((x) => x.tool_call_id !== stoppedAt)) lines.push(`  waiting:  ${e.tool} ${e.tool_call_id} (${e.rule_source}) until ${new Date(e.expires_at).toISOString()}: strand job answer ${view.job_id} ${e.tool_call_id} allow|deny`);
    if (p.needs_human) lines.push(`  needs a person: ${p.needs_human.reason}; until ${new Date(p.needs_human.resume_by).toISOString()}: strand job resume ${view.job_id} allow|deny [--message TEXT]`);
  }
  const r = view.report;
  if (r) {
    if (r.reason) lines.push(`  why:      ${r.reason}`);
    if (r.deliverable) lines.push(`  branch:   ${r.deliverable.branch ?? '—'} (${r.deliverable.commits.length} commits, ${r.deliverable.files.length} files, ${r.deliverable.verified ? 'verified' : 'NOT verified'})`);
    lines.push(`  spent:    ${r.usage.steps} steps, ${r.usage.tokens} tokens, $${r.usage.cost_usd.toFixed(4)}`, `  report:   strand job report ${view.job_id}`);
  }
  return lines.join('\n');
}
