import * as wf from '@temporalio/workflow';
import type { Activities } from '../../activities';
import {
  entryIds,
  turnId as turnIdOf,
  type TurnWorkflowInput,
  type TurnWorkflowResult,
} from '../../contracts/workflow-messages';

const quick = wf.proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 ms', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 20, nonRetryableErrorTypes: ['SESSION_NOT_FOUND'] },
});

/** Model steps stream for long; heartbeats tell Temporal the stream is alive and carry cancellation. */
const model = wf.proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '20 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 5,
    nonRetryableErrorTypes: ['provider.permanent', 'provider.auth_expired', 'provider.context_overflow'],
  },
});

function failureMessage(err: unknown): string {
  if (err instanceof wf.ActivityFailure && err.cause) return err.cause.message;
  return err instanceof Error ? err.message : String(err);
}

/**
 * One prompt turn (`session:<id>:turn:<n>`): records the user message, streams model steps until the
 * model ends or the step limit, and reports how it went. Provider failures end the turn with an
 * `error` event rather than failing the workflow, so the session always returns to idle.
 */
export async function turnWorkflow(raw: TurnWorkflowInput): Promise<TurnWorkflowResult> {
  const input = { ...raw, max_steps: raw.max_steps ?? 25 };
  const turn_id = turnIdOf(input.turn_number);
  const sid = input.session_id;

  await quick.publishEvents(sid, [
    { id: `${turn_id}:started`, turn_id, event: { type: 'turn.started', turn_id, prompt: input.text } },
    {
      id: `${turn_id}:thinking`,
      turn_id,
      event: { type: 'session.state', phase: 'thinking', model: input.model, thinking_level: input.thinking_level, queue_length: 0 },
    },
  ]);
  await quick.recordUserMessage({ session_id: sid, turn_number: input.turn_number, entry_id: entryIds.user(turn_id), text: input.text });

  let steps = 0;
  let outcome: TurnWorkflowResult['outcome'] = 'done';
  try {
    for (let step = 0; step < input.max_steps; step++) {
      steps = step + 1;
      const result = await model.streamModelStep({ session_id: sid, turn_id, step, model: input.model });
      // Tool calls join the loop with the tools issue; until then every step ends the turn.
      if (result.stop_reason !== 'function_call') break;
    }
  } catch (err) {
    outcome = 'error';
    await quick.publishEvents(sid, [
      { id: `${turn_id}:error`, turn_id, event: { type: 'error', code: 'LLM_API_ERROR', message: failureMessage(err) } },
    ]);
  }
  await quick.publishEvents(sid, [
    { id: `${turn_id}:finished`, turn_id, event: { type: 'turn.finished', turn_id, outcome } },
  ]);
  return { turn_id, outcome, steps };
}
