import '../harness/quiet-temporal';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { JobReport } from '../../contracts/job-report';
import type { JobSpecInput } from '../../contracts/job-spec';
import { JOB_WORKFLOW_TYPE, jobWorkflowId, type JobWorkflowInput } from '../../contracts/job-workflow';
import { useJobStack } from './job-stack';

/**
 * The job's watchdog (docs/jobs.md, "Watchdog"): a turn that reports no progress for
 * `limits.stall_s` is cut and retried once as a new turn; a second stall ends the job `failed` with
 * the diagnosis. The scripted model stalls (sends a delta, then nothing) or its tool call hangs.
 */
const jobs = useJobStack();

/**
 * The shortest stall the spec accepts (contracts/job-spec.ts): each stall is waited for in real time
 * (the turn's activity runs meanwhile, so the server skips no time), three of them in this file.
 */
const STALL_S = 10;

const jobId = () => `w-${randomUUID().slice(0, 8)}`;

function run(job_id: string, spec: Omit<JobSpecInput, 'version'>): Promise<JobReport> {
  const input: JobWorkflowInput = { job_id, spec: { version: 1, ...spec } };
  return jobs.stack.worker.runUntil(async () => (await jobs.env.client.workflow.start(JOB_WORKFLOW_TYPE, { taskQueue: jobs.stack.taskQueue, workflowId: jobWorkflowId(job_id), args: [input] })).result() as Promise<JobReport>);
}

test('a model stream that stalls for good: cut after stall_s, retried once, then the job fails with the diagnosis', async () => {
  await jobs.stack.script('stalls-forever', [[{ type: 'text', text: 'Looking.' }, { type: 'stall' }]]);
  const report = await run(jobId(), { task: { prompt: 'look', project_path: jobs.stack.repo, model: 'scripted/stalls-forever' }, limits: { stall_s: STALL_S } });
  expect(report).toMatchObject({
    status: 'failed',
    reason: `no progress for ${STALL_S} s in step 1 of turn t2: the model stream stalled (a stalled step is cut and retried once; the retry stalled too)`,
    stalls: [`no progress for ${STALL_S} s in step 1 of turn t1: the model stream stalled`, `no progress for ${STALL_S} s in step 1 of turn t2: the model stream stalled`],
    turns: [
      { kind: 'work', turn_id: 't1', outcome: 'aborted' },
      { kind: 'retry', turn_id: 't2', outcome: 'aborted' },
    ],
    deliverable: { verified: true, files: [] },
  });
}, 180_000);

test('a tool that hangs once: cut, and the retry turn finishes the work; the job succeeds and names the stall', async () => {
  const mark = path.join(jobs.stack.scriptsDir, `hung-once-${randomUUID().slice(0, 8)}`);
  await jobs.stack.script('hangs-once', [
    [{ type: 'tool_call', name: 'shell_exec', args: { command: `test -f ${mark} || { touch ${mark}; sleep 3600; }; echo done > done.txt` } }],
    [{ type: 'text', text: 'Wrote done.txt.' }],
  ]);
  const report = await run(jobId(), { task: { prompt: 'write done.txt', project_path: jobs.stack.repo, model: 'scripted/hangs-once' }, limits: { stall_s: STALL_S } });
  expect(report).toMatchObject({
    status: 'succeeded',
    summary: 'Wrote done.txt.',
    stalls: [expect.stringMatching(new RegExp(`^no progress for ${STALL_S} s in step 1 of turn t1: tool shell_exec.* did not return$`))],
    turns: [
      { kind: 'work', turn_id: 't1', outcome: 'aborted' },
      { kind: 'retry', turn_id: 't2', outcome: 'done', steps: 2 },
    ],
    deliverable: { verified: true, files: [{ path: 'done.txt', added: 1, removed: 0 }] },
  });
  // The hung call was cut (no exit), the retry's ran to its end.
  expect(report.commands.map((c) => c.exit_code)).toEqual([null, 0]);
}, 180_000);
