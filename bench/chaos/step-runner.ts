import { Client, Connection } from '@temporalio/client';
import { turnWorkflowId } from '../../contracts/workflow-ids';
import type { InstanceName, Stack } from '../../infra/stack/stack';

/** The activities a turn runs on a worker: its model steps and its tool calls. */
export type TurnActivity = 'streamModelStep' | 'runTool';

/**
 * The worker instance running `activity` of a turn right now, as Temporal last saw it: the pending
 * activity names its worker by identity (`<pid>@<host>`), which is matched against the stack's pids.
 */
export async function workerRunning(stack: Stack, sessionId: string, turn: string, activity: TurnActivity, timeoutMs = 10_000): Promise<InstanceName> {
  const connection = await Connection.connect({ address: stack.urls.temporal });
  try {
    const handle = new Client({ connection }).workflow.getHandle(turnWorkflowId(sessionId, Number(turn.replace(/^t/, ''))));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { raw } = await handle.describe();
      const pending = raw.pendingActivities?.find((a) => a.activityType?.name === activity && a.lastWorkerIdentity);
      const pid = Number(pending?.lastWorkerIdentity?.split('@')[0]);
      const name = stack.instances('worker').find((n) => stack.process(n).pid === pid);
      if (name) return name;
      if (Date.now() > deadline) throw new Error(`no worker of the stack runs ${activity} of ${turn} (identity ${pending?.lastWorkerIdentity ?? 'none'})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await connection.close();
  }
}
