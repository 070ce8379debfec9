import { Client, Connection } from '@temporalio/client';
import { turnWorkflowId } from '../../contracts/workflow-ids';
import type { ComposeProject } from './compose-project';

/**
 * The worker container running `activity` of a turn right now, as Temporal last saw it. A worker's
 * identity is `<pid>@<hostname>`, and a container's hostname is the start of its id: the container
 * of `service` whose id starts with that hostname is the one. Used to crash the worker that holds the
 * step (with two workers, killing the idle one would prove nothing).
 */
export async function workerContainerRunning(
  compose: ComposeProject,
  temporalAddress: string,
  sessionId: string,
  turnId: string,
  activity = 'streamModelStep',
  service = 'worker',
  timeoutMs = 15_000,
): Promise<string> {
  const connection = await Connection.connect({ address: temporalAddress });
  try {
    const handle = new Client({ connection }).workflow.getHandle(turnWorkflowId(sessionId, Number(turnId.replace(/^t/, ''))));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { raw } = await handle.describe();
      const identity = raw.pendingActivities?.find((a) => a.activityType?.name === activity && a.lastWorkerIdentity)?.lastWorkerIdentity ?? '';
      const host = identity.split('@')[1] ?? '';
      const container = host ? (await compose.containersOf(service)).find((id) => id.startsWith(host)) : undefined;
      if (container) return container;
      if (Date.now() > deadline) throw new Error(`no ${service} container runs ${activity} of ${turnId} (identity ${identity || 'none'})`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await connection.close();
  }
}
