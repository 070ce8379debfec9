import * as wf from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { SessionSettings } from '../../contracts/session-settings';
import { subagentPolicy } from '../../contracts/subagent-policy';
import { turnInterruptSignal } from '../../contracts/turn-protocol';
import type { TurnWorkflowInput, TurnWorkflowResult } from '../../contracts/turn-workflow';
import { TURN_WORKFLOW_TYPE, subagentWorkflowId } from '../../contracts/workflow-ids';
import { storeRetry } from '../retry-policies';

/** Store reads and writes around the child; retried like the store's own activities. */
const acts = wf.proxyActivities<Activities>({ startToCloseTimeout: '20 seconds', retry: storeRetry });

export interface TaskCall {
  session_id: string;
  project_path: string;
  turn_id: string;
  step: number;
  call_id: string;
  settings: SessionSettings;
  /** True once the parent turn was asked to stop at its next step boundary. */
  interrupted?: () => boolean;
}

/** Histories of sub-agents started before interrupts were passed on replay without the forwarding. */
const FORWARD_INTERRUPT_PATCH = 'subagent-forward-interrupt';

/**
 * One `task` call (docs/subagents.md): its sub-session, then the sub-agent as a child turn workflow
 * (under this turn in the Temporal UI; its id derives from this turn's and the call's, so a replayed
 * or retried parent never starts two), then its final answer as the call's recorded outcome. The
 * child is cancelled with this turn (an abort) and waited for; a worker crash resumes it like any
 * turn. Its outcome reaches the store through the ledger, as a tool's does.
 */
export async function runTask(call: TaskCall): Promise<void> {
  const ref = { session_id: call.session_id, turn_id: call.turn_id, step: call.step, call_id: call.call_id };
  const started = await acts.startSubagent.executeWithOptions({ startToCloseTimeout: '20 seconds', retry: storeRetry, summary: `task ${call.call_id}: sub-session` }, [
    { ...ref, project_path: call.project_path, settings: call.settings },
  ]);
  if (!started.started) return;
  // No caps of its own: nobody could raise them for it. Its spend counts at the parent's next step (docs/subagents.md).
  const { budget: _parentCaps, ...settings } = call.settings;
  const input: TurnWorkflowInput = {
    session_id: started.session_id,
    project_path: call.project_path,
    turn_number: 1,
    text: started.prompt,
    settings: { ...settings, approval: subagentPolicy(call.settings.approval, started.tools) },
    max_steps: started.max_steps,
    record: { last_turn: 1, requests: [] },
    thinking_before_next_step: true,
    subagent: { parent_session_id: call.session_id, parent_turn_id: call.turn_id, tool_call_id: call.call_id, tools: started.tools },
  };
  let result: TurnWorkflowResult | undefined;
  let failure: string | undefined;
  try {
    const child = await wf.startChild<(i: TurnWorkflowInput) => Promise<TurnWorkflowResult>>(TURN_WORKFLOW_TYPE, {
      workflowId: subagentWorkflowId(wf.workflowInfo().workflowId, call.call_id),
      taskQueue: wf.workflowInfo().taskQueue,
      args: [input],
      staticSummary: `task: ${started.description}`,
      parentClosePolicy: 'TERMINATE',
      cancellationType: wf.ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
    });
    result = await (call.interrupted && wf.patched(FORWARD_INTERRUPT_PATCH) ? forwardingInterrupt(child, call.interrupted) : child.result());
  } catch (err) {
    if (wf.isCancellation(err)) throw err;
    failure = err instanceof wf.ChildWorkflowFailure && err.cause ? err.cause.message : err instanceof Error ? err.message : String(err);
  }
  await acts.finishSubagent.executeWithOptions({ startToCloseTimeout: '20 seconds', retry: storeRetry, summary: `task ${call.call_id}: result` }, [
    { ...ref, sub_session_id: started.session_id, outcome: result?.outcome ?? 'error', steps: result?.steps ?? 0, ...(result?.interrupted ? { interrupted: true } : {}), ...(failure ? { failure } : {}) },
  ]);
}

/**
 * The child's result, passing the parent's interrupt on: the parent stops after the step that runs
 * this call, so without it an interrupt would wait for the whole sub-agent. The sub-agent stops after
 * its own current step and its answer so far is the call's result (docs/subagents.md).
 */
async function forwardingInterrupt(child: wf.ChildWorkflowHandle<(i: TurnWorkflowInput) => Promise<TurnWorkflowResult>>, interrupted: () => boolean): Promise<TurnWorkflowResult> {
  const forward = new wf.CancellationScope();
  const forwarding = forward
    .run(async () => {
      await wf.condition(interrupted);
      await child.signal(turnInterruptSignal);
    })
    .catch((err: unknown) => {
      // Cancelled once the child ended; a child that ended before the signal reached it needs none.
      if (!wf.isCancellation(err) && !(err instanceof Error && /not found|already completed/i.test(err.message))) throw err;
    });
  try {
    return await child.result();
  } finally {
    forward.cancel();
    await forwarding;
  }
}
