import * as wf from '@temporalio/workflow';
import { ApplicationFailure } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { checkpointCommandSchema, checkpointsUpdate, revertRequestSchema, type CheckpointCommand, type CheckpointCommandResult } from '../../contracts/checkpoints';
import { FailureType } from '../../contracts/failures';
import { PHASE_TRANSITIONS, type SessionManager } from './session-manager';

/** Listing reads files; a revert writes the workspace and moves the leaf: a few attempts, then it is reported. */
const checkpointActivities = wf.proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
});

/**
 * The session's checkpoint command (docs/undo.md): `list` answers any time; `revert` (and redo) runs
 * on the worker that owns the checkpoints and reaches the workspace, only while no turn, compaction or
 * command runs, and holds off queued prompts while it works (like a user's command).
 */
export function registerCheckpoints(manager: SessionManager): void {
  const s = manager.state;
  wf.setHandler(checkpointsUpdate, (cmd) => run(manager, cmd), {
    validator: (cmd: CheckpointCommand) => {
      if (!checkpointCommandSchema.safeParse(cmd).success) throw ApplicationFailure.nonRetryable('unknown checkpoint command', FailureType.INVALID_COMMAND);
      if (cmd.op !== 'revert') return;
      const { op: _op, ...request } = cmd;
      const parsed = revertRequestSchema.safeParse(request);
      if (!parsed.success) throw ApplicationFailure.nonRetryable(parsed.error.issues.map((i) => i.message).join('; '), FailureType.INVALID_COMMAND);
      if (s.busy) throw ApplicationFailure.nonRetryable(`session ${s.sessionId} is busy: revert once the turn is done`, FailureType.SESSION_BUSY);
    },
  });
}

async function run(manager: SessionManager, cmd: CheckpointCommand): Promise<CheckpointCommandResult> {
  const s = manager.state;
  if (cmd.op === 'list') return { checkpoints: await checkpointActivities.listCheckpoints({ session_id: s.sessionId }) };
  s.beginWork('revert');
  try {
    await wf.condition(() => s.loaded);
    // Its phase (tool_execution: it rewrites the workspace) is announced; before the patch a revert published none.
    if (wf.patched(PHASE_TRANSITIONS)) await manager.publishState();
    const { op: _op, ...request } = cmd;
    return await checkpointActivities.revertCheckpoints({ ...request, session_id: s.sessionId, project_path: s.record!.project_path, revert_id: wf.uuid4() });
  } finally {
    s.endWork();
    await manager.publishState();
  }
}
