import '../harness/quiet-temporal';
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { gitOk } from '../../activities/job-workspace/git';
import { jobAftercareWorkflowId, type JobAftercareView } from '../../contracts/job-aftercare';
import type { JobReport } from '../../contracts/job-report';
import { JOB_WORKFLOW_TYPE, jobWorkflowId, type JobWorkflowInput } from '../../contracts/job-workflow';
import { useJobStack } from './job-stack';

/**
 * Retention (docs/jobs.md): a finished job's worktree is kept STRAND_JOB_RETENTION_HOURS (here 72, the
 * default), then removed by the job's aftercare workflow; the branch and the patch file stay. The
 * time-skipping server skips the 72 hours.
 */
const jobs = useJobStack({ retentionHours: 72 });

const exists = (p: string) => fs.stat(p).then(
  () => true,
  () => false,
);

test('after the retention time the worktree is gone and git no longer lists it; the branch and the patch stay', async () => {
  await jobs.stack.script('retained', [[{ type: 'tool_call', name: 'write_file', args: { path: 'kept.txt', content: 'kept\n' } }], [{ type: 'text', text: 'Wrote kept.txt.' }]]);
  const id = `r-${randomUUID().slice(0, 8)}`;
  const input: JobWorkflowInput = { job_id: id, spec: { version: 1, task: { prompt: 'write kept.txt', project_path: jobs.stack.repo, model: 'scripted/retained' } } };
  const [report, after, atEnd] = await jobs.stack.worker.runUntil(async () => {
    const h = await jobs.env.client.workflow.start(JOB_WORKFLOW_TYPE, { taskQueue: jobs.stack.taskQueue, workflowId: jobWorkflowId(id), args: [input] });
    const report = (await h.result()) as JobReport;
    // Right after the job the workspace is there (its aftercare only waits).
    const atEnd = await exists(report.workspace!.path);
    return [report, (await jobs.env.client.workflow.getHandle(jobAftercareWorkflowId(id)).result()) as JobAftercareView, atEnd] as const;
  });
  expect(report.status).toBe('succeeded');
  const workspace = report.workspace!.path;
  expect(atEnd).toBe(true);
  expect(after).toMatchObject({ job_id: id, notification: null, workspace_remove_at: expect.any(String), workspace_removed_at: expect.any(String) });
  expect(Date.parse(after.workspace_removed_at!) - Date.parse(report.finished_at)).toBeGreaterThanOrEqual(72 * 3600_000);
  expect(await exists(workspace)).toBe(false);
  expect(await gitOk(jobs.stack.repo, ['worktree', 'list', '--porcelain'])).not.toContain(path.basename(path.dirname(workspace)));
  // The deliverable stays: the branch with its commit, and the patch file.
  expect(await gitOk(jobs.stack.repo, ['show', `strand/job-${id}:kept.txt`])).toBe('kept\n');
  expect(await fs.readFile(report.deliverable!.patch_path!, 'utf8')).toContain('+kept');
}, 180_000);
