import * as wf from '@temporalio/workflow';
import type { TurnOutcome, TurnWorkflowInput, TurnWorkflowResult } from '../../contracts/turn-workflow';
import { DEFAULT_COMPACTION_THRESHOLD } from '../../contracts/turn-protocol';
import { TurnFailure, compactInTurn, modelStepWithRetries } from './model-step';
import { BudgetStop } from './budget-wait';
import { errorCodeOf, stepFailureOf } from './step-failure';
import { ToolBatch } from './tool-batch';
import { readTurnInput } from './turn-input';
import { TurnState, local } from './turn-state';

/**
 * One prompt turn (`session:<id>:turn:<n>`): its first model step records the user message (so the
 * turn's first workflow task schedules the model at once), then model steps stream until the
 * model ends, the step limit, an abort or a terminal error, and returns how it went. The session
 * workflow publishes `turn.finished` and the next state once it has released the session.
 */
export async function turnWorkflow(raw: TurnWorkflowInput): Promise<TurnWorkflowResult> {
  const turn = new TurnState(readTurnInput(raw));
  turn.register();
  const { input, turnId: turn_id } = turn;
  let steps = input.first_step;
  let outcome: TurnOutcome = 'done';
  let continueAt: number | undefined;
  try {
    await turn.scope.run(async () => {
      for (let step = input.first_step; step < input.max_steps; step++) {
        // A long job: history grows with every step; a fresh run carries on where this one stops.
        if (step > input.first_step && wf.workflowInfo().continueAsNewSuggested) {
          continueAt = step;
          return;
        }
        steps = step + 1;
        if ((await runStep(turn, step)) === 'stop') break;
      }
    });
  } catch (err) {
    outcome = await endEarly(turn, err);
  }
  if (continueAt !== undefined && outcome === 'done') {
    await wf.condition(wf.allHandlersFinished);
    // The caps the turn has now (a raised budget included), not the ones it started with.
    const { budget: _started, ...settings } = input.settings;
    const budget = turn.budget ? { budget: turn.budget } : {};
    return wf.continueAsNew<typeof turnWorkflow>({ ...input, ...(turn.sessionPart ? { session_part: turn.sessionPart } : {}), first_step: continueAt, settings: { ...settings, ...budget, approval: turn.policy }, steering: turn.steering.splice(0) });
  }
  // A state this turn is still publishing (a new session part) must land before the session's own
  // state after the turn. Older turns publish no state of their own.
  if (turn.sessionPart) await wf.condition(wf.allHandlersFinished);
  // A sub-agent stopped by its parent's abort ends cancelled, as the Temporal UI should show it.
  if (input.subagent && outcome === 'aborted') throw new wf.CancelledFailure('the parent turn was aborted');
  return { turn_id, outcome, steps, ...(turn.interrupted ? { interrupted: true } : {}) };
}

/** One step: the model, its tools, steering taken after it; `stop` when the turn is done. */
async function runStep(turn: TurnState, step: number): Promise<'next' | 'stop'> {
  const { input, turnId: turn_id } = turn;
  const sid = input.session_id;
  const result = await modelStepWithRetries(turn, step);
  if (result.tool_calls.length > 0) {
    const ctx = { session_id: sid, project_path: input.project_path, turn_id, step, policy: turn.policy, publish: (e: Parameters<TurnState['publish']>[0]) => turn.publish(e), report: turn.report.bind(turn), steered: () => turn.steering.length > 0, interrupted: () => turn.interrupted, settings: input.settings, subagent: input.subagent };
    turn.batch = new ToolBatch(ctx, result.tool_calls);
    await turn.batch.run();
    const done = turn.batch;
    turn.batch = undefined;
    await local.recordToolResults({ session_id: sid, turn_id, step, calls: done.dispositions(undefined) });
    if (!turn.reportsThinkingBeforeNextStep) await turn.report({ phase: 'thinking', step: step + 1, streaming: false });
  }
  let steered = 0;
  for (const text of turn.steering.splice(0)) {
    await local.recordSteering({ session_id: sid, turn_id, step, index: steered++, text });
  }
  if (result.tool_calls.length === 0 && steered === 0) return 'stop';
  // Interrupted: this step and its tools are done; the model is not called again.
  if (turn.interrupted) {
    await turn.publish([{ type: 'notice', level: 'info', message: `interrupted: the turn stopped after step ${step + 1}; the model has not seen what came after its last answer (tool results, steering)` }]);
    return 'stop';
  }
  // The next step would start past the threshold: compact first (the context shrinks to a summary).
  if (input.settings.auto_compaction && result.context_tokens > DEFAULT_COMPACTION_THRESHOLD * result.context_window) {
    await compactInTurn(turn, step, 'threshold', result.context_window);
  }
  // Announced before the next step streams (and only when there is one: never after the final answer).
  if (turn.reportsThinkingBeforeNextStep) await turn.report({ phase: 'thinking', step: step + 1, streaming: false });
  return 'next';
}

/** An abort or a failure the turn gave up on: record what must be recorded, announce the error. */
async function endEarly(turn: TurnState, err: unknown): Promise<TurnOutcome> {
  // An activity that heard the abort on the fast path fails before Temporal's cancel reaches it.
  if (wf.isCancellation(err) || turn.scope.consideredCancelled) {
    // Every tool call the model made gets a result, or the next request to the provider fails.
    const cut = turn.batch;
    if (cut) await wf.CancellationScope.nonCancellable(() => local.recordToolResults({ session_id: turn.input.session_id, turn_id: turn.turnId, step: cut.step, calls: cut.dispositions('aborted') }));
    return 'aborted';
  }
  if (err instanceof BudgetStop) {
    await wf.CancellationScope.nonCancellable(() => turn.publish([{ type: 'notice', level: 'info', message: 'interrupted: the turn waited for a higher budget and stopped before its next model step' }]));
    return 'aborted';
  }
  const failure = err instanceof TurnFailure ? err.failure : stepFailureOf(err);
  await wf.CancellationScope.nonCancellable(() =>
    turn.publish([
      {
        type: 'error',
        code: errorCodeOf(failure),
        message: failure.message,
        turn_id: turn.turnId,
        kind: failure.kind,
        ...(failure.provider ? { provider: failure.provider } : {}),
        ...(failure.status !== undefined ? { status: failure.status } : {}),
      },
    ]),
  );
  return 'error';
}
