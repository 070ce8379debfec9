import * as wf from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { CheckpointSummary } from '../contracts/checkpoints';

const { listCheckpoints } = wf.proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: { initialInterval: '1 second', maximumAttempts: 3 } });

/**
 * Lists a session's file checkpoints (docs/undo.md) apart from its session workflow, so the read
 * neither wakes a dormant session nor writes to its history. The checkpoints live on the workers'
 * disk (STRAND_CHECKPOINT_DIR), so a worker reads them: one activity, then the run ends.
 */
export async function checkpointListWorkflow(input: { session_id: string }): Promise<{ checkpoints: CheckpointSummary[] }> {
  return { checkpoints: await listCheckpoints({ session_id: input.session_id }) };
}
