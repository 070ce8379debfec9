import { Client, Connection } from '@temporalio/client';
import { turnWorkflowId } from '../../contracts/workflow-ids';
import type { InstanceName, Stack } from '../../infra/stack/stack';

const MODEL_STEP = 'streamModelStep';

/**
 * The worker instance running a turn's model step right now, as Temporal last saw it: its pending
 * activity names the worker by identity (`<pid>@<host>`), which is matched against the stack's pids.
 */
export async function workerRunningModelStep(stack: Stack, sessionId: string, turn: string, timeoutMs = 10_000): Promise<InstanceName> {
  const connection = await Connection.connect({ address: stack.urls.temporal });
  try {
    const handle = new Client({ connection }).workflow.getHandle(turnWorkflowId(sessionId, Number(turn.replace(/^t/, ''))));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { raw } = await handle.describe();
      const step = raw.pendingActivities?.find((a) => a.activityType?.name === MODEL_STEP && a.lastWorkerIdentity);
      const pid = Number(step?.lastWorkerIdentity?.split('@')[0]);
      const name = stack.instances('worker').find((n) => stack.process(n).pid === pid);
      if (name) return name;
      if (Date.now() > deadline) throw new Error(`no worker of the stack runs the model step of ${turn} (identity ${step?.lastWorkerIdentity ?? 'none'})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await connection.close();
  }
}
