import '../harness/quiet-temporal';
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { jobAftercareQuery, jobAftercareWorkflowId, type JobAftercareView } from '../../contracts/job-aftercare';
import type { JobEscalationNotice } from '../../contracts/job-notify';
import type { JobReport } from '../../contracts/job-report';
import type { JobSpecInput } from '../../contracts/job-spec';
import { escalationAnswerSignal, JOB_WORKFLOW_TYPE, jobWorkflowId, type JobWorkflowInput } from '../../contracts/job-workflow';
import { waitFor } from '../harness/dev-server-worker';
import { useJobStack } from './job-stack';

/**
 * A job's signed webhook (docs/jobs.md, "Notification") against a real HTTP receiver: the report
 * POSTed at the job's end with a signature the receiver checks as the docs show, retried on 5xx with
 * one delivery id, refused for good on a 4xx, never changing the job's status; an escalation's
 * notification carrying the call, its arguments, its deadline and how to answer, which the test
 * then does.
 */
const SECRET = 'test-secret-of-the-receiver';
const jobs = useJobStack({ env: { STRAND_JOB_SECRET_HOOK: SECRET } });

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A receiver answering each POST with the next status of `statuses` (the last one repeats). */
async function receiver(statuses: number[]): Promise<{ url: string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = statuses[Math.min(received.length - 1, statuses.length - 1)]!;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** The receiver's check, as docs/jobs.md shows it. */
function verify(secret: string, body: string, header: string | undefined): boolean {
  const expected = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  return header !== undefined && header.length === expected.length && timingSafeEqual(Buffer.from(header), Buffer.from(expected));
}

const jobId = () => `n-${randomUUID().slice(0, 8)}`;

function start(job_id: string, spec: Omit<JobSpecInput, 'version'>) {
  const input: JobWorkflowInput = { job_id, spec: { version: 1, ...spec } };
  return jobs.env.client.workflow.start(JOB_WORKFLOW_TYPE, { taskQueue: jobs.stack.taskQueue, workflowId: jobWorkflowId(job_id), args: [input] });
}

const aftercare = (id: string) => jobs.env.client.workflow.getHandle(jobAftercareWorkflowId(id)).query(jobAftercareQuery);
const settled = (v: JobAftercareView) => v.notification !== null && v.notification.status !== 'pending';

test('the report is POSTed signed when the job ends, retried on 5xx under one delivery id, and its delivery is recorded', async () => {
  const hook = await receiver([500, 503, 204]);
  try {
    await jobs.stack.script('notify-ok', [[{ type: 'text', text: 'Nothing to change.' }]]);
    const id = jobId();
    const [report, after] = await jobs.stack.worker.runUntil(async () => {
      const h = await start(id, { task: { prompt: 'look around', project_path: jobs.stack.repo, model: 'scripted/notify-ok' }, notify: { url: hook.url, secret_env: 'STRAND_JOB_SECRET_HOOK', events: ['job.finished'] } });
      const report = (await h.result()) as JobReport;
      return [report, await waitFor(() => aftercare(id), settled, 60_000)] as const;
    });
    expect(report.status).toBe('succeeded');
    expect(hook.received).toHaveLength(3);
    for (const r of hook.received) {
      expect(r.headers).toMatchObject({ 'x-strand-event': 'job.finished', 'x-strand-delivery': `job:${id}:report`, 'content-type': 'application/json' });
      expect(verify(SECRET, r.body, r.headers['x-strand-signature'] as string)).toBe(true);
      expect(verify('another secret', r.body, r.headers['x-strand-signature'] as string)).toBe(false);
      expect(Number.isNaN(Date.parse(r.headers['x-strand-timestamp'] as string))).toBe(false);
      // The body is the report, byte for byte the job's result.
      expect(JSON.parse(r.body)).toEqual(report);
    }
    expect(after.notification).toEqual({ event: 'job.finished', delivery_id: `job:${id}:report`, status: 'delivered', delivered_at: expect.any(String), attempts: 3 });
  } finally {
    await hook.close();
  }
}, 120_000);

test('a 4xx is the receiver’s final word: one attempt, the error recorded, the job’s status untouched; a missing secret fails the same way', async () => {
  const hook = await receiver([400]);
  try {
    await jobs.stack.script('notify-refused', [[{ type: 'text', text: 'Done.' }]]);
    const [refused, noSecret] = [jobId(), jobId()];
    const [reports, views] = await jobs.stack.worker.runUntil(async () => {
      const a = await start(refused, { task: { prompt: 'x', project_path: jobs.stack.repo, model: 'scripted/notify-refused' }, notify: { url: hook.url, secret_env: 'STRAND_JOB_SECRET_HOOK' } });
      const b = await start(noSecret, { task: { prompt: 'x', project_path: jobs.stack.repo, model: 'scripted/notify-refused' }, notify: { url: hook.url, secret_env: 'STRAND_JOB_SECRET_UNSET' } });
      const reports = [(await a.result()) as JobReport, (await b.result()) as JobReport];
      return [reports, [await waitFor(() => aftercare(refused), settled, 60_000), await waitFor(() => aftercare(noSecret), settled, 60_000)]] as const;
    });
    expect(reports.map((r) => r.status)).toEqual(['succeeded', 'succeeded']);
    expect(views[0]!.notification).toEqual({ event: 'job.finished', delivery_id: `job:${refused}:report`, status: 'failed', attempts: 1, last_error: `POST ${hook.url} answered 400` });
    expect(views[1]!.notification).toEqual({ event: 'job.finished', delivery_id: `job:${noSecret}:report`, status: 'failed', attempts: 1, last_error: 'the worker has no STRAND_JOB_SECRET_UNSET (the notification’s secret) set' });
    // The job without its secret sent nothing.
    expect(hook.received.map((r) => r.headers['x-strand-delivery'])).toEqual([`job:${refused}:report`]);
  } finally {
    await hook.close();
  }
}, 120_000);

test('an escalation is notified with the call, its arguments, its deadline and how to answer; answering as it says lets the call run', async () => {
  const hook = await receiver([200]);
  try {
    await jobs.stack.script('notify-escalate', [[{ type: 'tool_call', name: 'shell_exec', args: { command: 'echo ok > ok.txt' } }], [{ type: 'text', text: 'Wrote ok.txt.' }]]);
    const id = jobId();
    const report = await jobs.stack.worker.runUntil(async () => {
      const h = await start(id, {
        task: { prompt: 'write ok.txt', project_path: jobs.stack.repo, model: 'scripted/notify-escalate' },
        policy: { tools: { shell_exec: 'escalate' }, escalation: { timeout_s: 3600, on_timeout: 'deny' } },
        notify: { url: hook.url, secret_env: 'STRAND_JOB_SECRET_HOOK', events: ['job.escalation'] },
      });
      await waitFor(async () => hook.received.length, (n) => n > 0, 60_000);
      const notice = JSON.parse(hook.received[0]!.body) as JobEscalationNotice;
      expect(hook.received[0]!.headers).toMatchObject({ 'x-strand-event': 'job.escalation', 'x-strand-delivery': `job:${id}:escalation:${notice.tool_call_id}` });
      expect(verify(SECRET, hook.received[0]!.body, hook.received[0]!.headers['x-strand-signature'] as string)).toBe(true);
      expect(notice).toMatchObject({ event: 'job.escalation', job_id: id, workflow_id: `job:${id}`, tool: 'shell_exec', turn_id: 't1', rule_source: 'tools.shell_exec', on_timeout: 'deny', answer: { signal: 'jobEscalationAnswer' } });
      expect(JSON.parse(notice.arguments_summary)).toEqual({ command: 'echo ok > ok.txt' });
      expect(Date.parse(notice.deadline)).toBeGreaterThan(Date.now() - 60_000);
      await jobs.env.client.workflow.getHandle(notice.workflow_id).signal(escalationAnswerSignal, { ...notice.answer.example, by: 'bob' });
      return (await h.result()) as JobReport;
    });
    expect(report.status).toBe('succeeded');
    expect(report.tool_calls.map((c) => [c.tool, c.outcome, c.answered_by])).toEqual([['shell_exec', 'ran', 'bob']]);
    expect(report.notifications).toEqual([{ event: 'job.escalation', delivery_id: expect.stringMatching(new RegExp(`^job:${id}:escalation:`)), status: 'delivered', delivered_at: expect.any(String), attempts: 1 }]);
    // Only the escalation was asked for: no job.finished delivery.
    expect(hook.received).toHaveLength(1);
  } finally {
    await hook.close();
  }
}, 120_000);
