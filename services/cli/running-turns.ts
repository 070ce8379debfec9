import { Client, Connection } from '@temporalio/client';
import { TURN_WORKFLOW_TYPE } from '../../contracts/workflow-ids';

/** How long the stop waits for Temporal to say which turns run: a stop must not hang on it. */
const ASK_MS = 1_500;

/**
 * The turns running now (`<session> t<n>`), from Temporal's visibility store, or undefined when
 * Temporal did not say in time. Read as the stack begins to stop, so the runner's last line can say
 * what happens to them: they are durable and go on when the stack is started again.
 */
export async function runningTurns(temporalAddress: string): Promise<string[] | undefined> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address: temporalAddress, connectTimeout: ASK_MS });
    const client = new Client({ connection });
    const names: string[] = [];
    await connection.withDeadline(Date.now() + ASK_MS, async () => {
      for await (const w of client.workflow.list({ query: `WorkflowType = '${TURN_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running'` })) {
        const m = /^session:(.+):turn:(\d+)$/.exec(w.workflowId);
        if (m) names.push(`${m[1]} t${m[2]}`);
      }
    });
    return names;
  } catch {
    return undefined;
  } finally {
    await connection?.close().catch(() => undefined);
  }
}

/** The runner's last line: how long the stop took and what became of the running turns. */
export function stoppedLine(seconds: number, turns: string[] | undefined): string {
  const head = `[strand] stopped in ${seconds.toFixed(1)} s`;
  if (!turns || turns.length === 0) return head;
  const listed = turns.length <= 3 ? turns.join(', ') : `${turns.slice(0, 3).join(', ')} and ${turns.length - 3} more`;
  return `${head}; ${turns.length === 1 ? 'a turn was' : `${turns.length} turns were`} running (${listed}): ${turns.length === 1 ? 'it goes' : 'they go'} on where ${turns.length === 1 ? 'it' : 'they'} stopped when strand starts again`;
}
