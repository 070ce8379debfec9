import * as wf from '@temporalio/workflow';
import type { JobActivities } from '../../activities/job-workspace';
import { jobAftercareQuery, type JobAftercareInput, type JobAftercareView } from '../../contracts/job-aftercare';
import { notifyDeliveryId } from '../../contracts/job-notify';
import { storeRetry } from '../retry-policies';
import { deliverNotification, wants } from './job-notify';

/** The removal runs where the workspace is: the host's queue the job passes on (absent: this workflow's queue). */
const removal = (taskQueue?: string) =>
  wf.proxyActivities<Pick<JobActivities, 'removeJobWorkspace'>>({ ...(taskQueue ? { taskQueue } : {}), startToCloseTimeout: '10 minutes', retry: { ...storeRetry, maximumAttempts: 10 } });

/** How long the report's delivery is retried before it is given up (docs/jobs.md). */
const REPORT_DELIVERY_MS = 24 * 3600 * 1000;

/**
 * After a job (`job:<id>:after`, docs/jobs.md): delivers the report as `job.finished` and, side by
 * side, keeps the workspace for the retention time, then removes it (the branch and the patch file
 * stay: they are the deliverable). A workflow of its own, abandoned by the job, rather than a timer at
 * the job's end, so the job's result is there as soon as it ends (schedules and hooks wait for it)
 * and a slow receiver never delays it; rather than a periodic sweep, because a durable timer per job
 * needs no scan of the disk, survives restarts and removes exactly what that job made.
 */
export async function jobAftercareWorkflow(input: JobAftercareInput): Promise<JobAftercareView> {
  const view: JobAftercareView = {
    job_id: input.job_id,
    notification: wants(input.notify, 'job.finished') ? { event: 'job.finished', delivery_id: notifyDeliveryId.finished(input.job_id), status: 'pending' } : null,
    workspace_remove_at: null,
    workspace_removed_at: null,
  };
  wf.setHandler(jobAftercareQuery, () => view);
  const notify = async () => {
    if (!wants(input.notify, 'job.finished')) return;
    view.notification = await deliverNotification(input.notify, 'job.finished', notifyDeliveryId.finished(input.job_id), input.report, REPORT_DELIVERY_MS);
  };
  const retain = async () => {
    const hours = input.retention_hours;
    if (!input.has_workspace || hours === null) return;
    view.workspace_remove_at = new Date(Date.now() + hours * 3600_000).toISOString();
    await wf.sleep(hours * 3600_000);
    await removal(input.workspace_task_queue).removeJobWorkspace({ job_id: input.job_id });
    view.workspace_removed_at = new Date(Date.now()).toISOString();
  };
  await Promise.all([notify(), retain()]);
  return view;
}
