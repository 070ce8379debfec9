import type { WorkflowHandle } from '@temporalio/client';
import type { InstanceName, Stack } from '../../infra/stack/stack';

/** The worker instance whose pid is in a Temporal worker identity (`<pid>@<host>`). */
function workerByIdentity(stack: Stack, identity: string | null | undefined): InstanceName | undefined {
  const pid = Number(identity?.split('@')[0]);
  return stack.instances('worker').find((name) => stack.process(name).pid === pid);
}

/** Which worker runs the workflow's pending activity of `activityType` right now (as Temporal last saw it). */
export async function workerRunning(stack: Stack, workflow: WorkflowHandle, activityType: string): Promise<InstanceName> {
  for (;;) {
    const { raw } = await workflow.describe();
    const pending = raw.pendingActivities?.find((a) => a.activityType?.name === activityType && a.lastWorkerIdentity);
    const name = workerByIdentity(stack, pending?.lastWorkerIdentity);
    if (name) return name;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The worker whose attempt of `activityType` started last, from the workflow's history. */
export async function workerThatLastRan(stack: Stack, workflow: WorkflowHandle, activityType: string): Promise<InstanceName | undefined> {
  const scheduled = new Map<string, string>();
  let last: string | null | undefined;
  for (const e of (await workflow.fetchHistory()).events ?? []) {
    const type = e.activityTaskScheduledEventAttributes?.activityType?.name;
    if (type) scheduled.set(String(e.eventId), type);
    const started = e.activityTaskStartedEventAttributes;
    if (started && scheduled.get(String(started.scheduledEventId)) === activityType) last = started.identity;
  }
  return workerByIdentity(stack, last);
}
