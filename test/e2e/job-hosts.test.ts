import '../harness/quiet-temporal';
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { gitOk } from '../../activities/job-workspace/git';
import type { JobReport } from '../../contracts/job-report';
import { escalationAnswerSignal, JOB_WORKFLOW_TYPE, jobProgressQuery, jobWorkflowId, type JobWorkflowInput } from '../../contracts/job-workflow';
import { waitFor } from '../harness/dev-server-worker';
import { DEFAULT_TASK_QUEUE } from '../../contracts/task-queues';
import { ManagedProcess } from '../../infra/stack/managed-process';
import { serviceSpecs } from '../../infra/stack/stack-specs';
import { startJobE2eStack, type JobE2eStack } from '../harness/job-e2e-stack';
import type { TestStack } from '../harness/stack-fixture';

/**
 * Jobs on workers of two hosts without a shared disk (docs/jobs.md, "Worker faults and several
 * hosts"): on one stack, the stack's worker is host `host-a` with its own STRAND_JOBS_DIR and a
 * second worker is host `host-b` with another. Whichever worker makes a job's workspace, the job's
 * turn (its model steps and tools) and its deliverable run on a worker of that host: the command
 * the agent runs writes the pid of the worker that ran it into the commit, and every activity in
 * the job's and its turn's histories after the workspace was started by that worker. Both hosts
 * make workspaces over the jobs run. A job whose host dies waits for it (its turn is not taken over
 * by the other host) and goes on when it is back.
 */
let js: JobE2eStack;
let stack: TestStack;
let hostB: ManagedProcess;
let client: Client;
let repo: string;
let scripts: string;
const dirs = { 'host-a': '', 'host-b': '' };

beforeAll(async () => {
  js = await startJobE2eStack('job-hosts', { STRAND_SCRIPTED_DELTA_DELAY_MS: '0', STRAND_WORKER_HOST: 'host-a' });
  ({ stack, repo, scripts } = js);
  dirs['host-a'] = js.jobsDir;
  // Not `…/jobs-b`: a workspace's host is told by its path's prefix, and host-a's folder is `…/jobs`.
  dirs['host-b'] = path.join(js.tmp, 'host-b-workspaces');
  // The second host's worker: the stack's worker with another host id and jobs folder.
  const specs = await serviceSpecs({ ...stack.config, serviceEnv: { ...stack.config.serviceEnv, STRAND_JOBS_DIR: dirs['host-b'], STRAND_WORKER_HOST: 'host-b' } });
  hostB = new ManagedProcess({ ...specs.worker, name: 'worker-host-b' }, (name, line) => stack.output.push(`[${name}] ${line}`));
  hostB.start();
  await hostB.waitForLine(/^\[worker\] ready .*host=host-b\b/, 90_000);
  client = await js.temporal();
}, 240_000);

afterAll(async () => {
  await hostB?.stop();
  await js?.teardown();
}, 60_000);

type Host = keyof typeof dirs;
/** Every pid each host's worker has had (a restarted worker is the same host). */
const pids: Record<Host, Set<number>> = { 'host-a': new Set(), 'host-b': new Set() };
function notePids(): void {
  pids['host-a'].add(stack.process('worker').pid!);
  pids['host-b'].add(hostB.pid!);
}

async function startJob(policy?: JobWorkflowInput['spec']['policy']) {
  const id = `h-${randomUUID().slice(0, 8)}`;
  // The agent writes a file, runs a command that records which worker ran it, and commits both.
  const commit = 'echo "$STRAND_WORKER_PID" > ran-on.txt && git add -A && git -c user.name=agent -c user.email=agent@localhost commit -qm "agent: notes"';
  await fs.writeFile(
    path.join(scripts, `${id}.json`),
    JSON.stringify({
      steps: [
        [{ type: 'tool_call', name: 'write_file', args: { path: 'notes.txt', content: 'hello\n' } }],
        [{ type: 'tool_call', name: 'shell_exec', args: { command: commit } }],
        [{ type: 'text', text: 'Committed the notes.' }],
      ],
    }),
  );
  const input: JobWorkflowInput = { job_id: id, spec: { version: 1, task: { prompt: 'take notes and commit them', project_path: repo, model: `scripted/${id}` }, ...(policy ? { policy } : {}) } };
  return client.workflow.start(JOB_WORKFLOW_TYPE, { taskQueue: DEFAULT_TASK_QUEUE, workflowId: jobWorkflowId(id), args: [input] });
}

async function finished(h: Awaited<ReturnType<typeof startJob>>): Promise<{ report: JobReport; host: Host }> {
  const report = (await h.result()) as JobReport;
  const host = (Object.keys(dirs) as Host[]).find((k) => report.workspace?.path.startsWith(dirs[k]));
  if (!host) throw new Error(`job ${h.workflowId}: no workspace on either host: ${JSON.stringify(report)}`);
  return { report, host };
}

const runJob = async () => finished(await startJob());

/** The job succeeded, and everything after its workspace ran on a worker of the workspace's host. */
async function expectOnItsHost({ report, host }: { report: JobReport; host: Host }): Promise<void> {
  expect(report).toMatchObject({
    status: 'succeeded',
    workspace: { kind: 'git_worktree', task_queue: `${DEFAULT_TASK_QUEUE}@${host}` },
    deliverable: { verified: true, problems: [], commits: [{ subject: 'agent: notes' }], files: [{ path: 'notes.txt', added: 1, removed: 0 }, { path: 'ran-on.txt', added: 1, removed: 0 }] },
  });
  expect(report.deliverable!.patch_path!.startsWith(dirs[host])).toBe(true);
  // The command ran on the workspace's host: the pid of the worker that ran it is in the commit.
  expect([...pids[host]]).toContain(Number(await gitOk(repo, ['show', `strand/job-${report.job_id}:ran-on.txt`])));
  const workers = await activityWorkers(report);
  expect(workers.map(([type]) => type)).toEqual(expect.arrayContaining(['streamModelStep', 'collectJobDeliverable', 'verifyJobDeliverable']));
  expect(workers.filter(([, pid]) => !pids[host].has(pid))).toEqual([]);
}

/**
 * The worker pid that started each activity that must run on the workspace's host: the job's
 * deliverable activities and every activity of its turn (model steps, tools). The job's store and
 * settings reads (its session, its summary) run anywhere.
 */
async function activityWorkers(report: JobReport): Promise<Array<[string, number]>> {
  const seen: Array<[string, number]> = [];
  const onHost = (workflowId: string, type: string) => workflowId !== jobWorkflowId(report.job_id) || type === 'collectJobDeliverable' || type === 'verifyJobDeliverable';
  for (const workflowId of [jobWorkflowId(report.job_id), `session:${report.session_id}:turn:1`]) {
    const scheduled = new Map<string, string>();
    for (const e of (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? []) {
      const type = e.activityTaskScheduledEventAttributes?.activityType?.name;
      if (type) scheduled.set(String(e.eventId), type);
      const started = e.activityTaskStartedEventAttributes;
      const startedType = started ? scheduled.get(String(started.scheduledEventId)) : undefined;
      if (started && startedType && onHost(workflowId, startedType)) seen.push([startedType, Number(started.identity?.split('@')[0])]);
    }
  }
  return seen;
}

test('jobs on two hosts without a shared disk: each job’s turn and deliverable run on the host of its workspace, and every job succeeds', async () => {
  notePids();
  const outcomes = await Promise.all([runJob(), runJob()]);
  // host-a alone stopped: the next jobs' workspaces are made on host-b, then both run again.
  await stack.process('worker').stop();
  outcomes.push(...(await Promise.all([runJob(), runJob()])));
  await stack.restart('worker');
  notePids();
  outcomes.push(...(await Promise.all([runJob(), runJob()])));
  for (const outcome of outcomes) await expectOnItsHost(outcome);
  expect(new Set(outcomes.map((o) => o.host))).toEqual(new Set(['host-a', 'host-b']));
}, 600_000);

test('a job whose host is gone waits for it: the turn does not move to the other host, and goes on once its host is back', async () => {
  notePids();
  // Only host-b runs while the job makes its workspace and its turn reaches an escalated call.
  await stack.process('worker').stop();
  const h = await startJob({ tools: { shell_exec: 'escalate' } });
  const waiting = await waitFor(() => h.query(jobProgressQuery), (p) => p.escalations.length > 0, 90_000);
  // host-b dies; host-a comes back; the person allows the call.
  await hostB.kill();
  await stack.restart('worker');
  notePids();
  await h.signal(escalationAnswerSignal, { tool_call_id: waiting.escalations[0]!.tool_call_id, decision: 'allow', by: 'alice' });
  // The job's own workflow runs on host-a (it answers its queries), but the turn waits for host-b.
  await waitFor(() => h.query(jobProgressQuery), (p) => p.escalations.length === 0, 30_000);
  await new Promise((r) => setTimeout(r, 3_000));
  expect((await h.describe()).status.name).toBe('RUNNING');
  // Nothing committed yet: the job's branch is still at its base.
  expect(await gitOk(repo, ['rev-parse', `strand/job-${h.workflowId.slice('job:'.length)}`])).toBe(await gitOk(repo, ['rev-parse', 'main']));
  hostB.start();
  await hostB.waitForLine(/^\[worker\] ready .*host=host-b\b/, 90_000);
  notePids();
  const outcome = await finished(h);
  expect(outcome.host).toBe('host-b');
  await expectOnItsHost(outcome);
  expect(outcome.report.tool_calls.map((c) => [c.tool, c.decided_by, c.answered_by ?? null])).toEqual([
    ['write_file', 'policy', null],
    ['shell_exec', 'person', 'alice'],
  ]);
}, 600_000);
