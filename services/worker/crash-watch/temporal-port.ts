import { ApplicationFailure } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import { FailureType } from '../../../contracts/failures';
import type { TemporalPort } from './crash-watcher';

/** The crash watcher's view of Temporal, through the SDK client (describe, reset sticky, fail by token). */
export function createTemporalPort(client: Client, namespace: string): TemporalPort {
  return {
    async heartbeatMark(entry) {
      const described = await client.workflowService.describeWorkflowExecution({ namespace, execution: { workflowId: entry.workflow_id, runId: entry.run_id } });
      const pending = described.pendingActivities?.find((a) => a.activityId === entry.activity_id);
      // STARTED (2) or CANCEL_REQUESTED (3) run on a worker; one in backoff or scheduled runs nowhere.
      if (!pending || pending.attempt !== entry.attempt || (pending.state !== 2 && pending.state !== 3)) return null;
      const hb = pending.lastHeartbeatTime;
      return `${hb?.seconds?.toString() ?? '-'}.${hb?.nanos ?? 0}`;
    },
    async failOnBehalf(entry, message) {
      // Without this the workflow's next task would wait on the dead worker's sticky queue first.
      await client.workflowService.resetStickyTaskQueue({ namespace, execution: { workflowId: entry.workflow_id, runId: entry.run_id } }).catch(() => undefined);
      await client.activity.fail(Buffer.from(entry.task_token, 'base64'), ApplicationFailure.create({ message, type: FailureType.INFRA_UNAVAILABLE, nonRetryable: false }));
    },
  };
}
