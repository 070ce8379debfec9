import * as wf from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { entryIds } from '../../contracts/workflow-ids';
import { COMPACTION_OPTIONS, compaction } from '../session/session-events';
import { WORKER_ACTIVITY_HEARTBEAT_TIMEOUT, noRetry } from '../retry-policies';
import { awaitBudget } from './budget-wait';
import { DEFAULT_RETRY_OPTIONS, decideRetry, maxAttemptsOf } from './retry-decision';
import { stepFailureOf, type StepFailure } from './step-failure';
import type { TurnState } from './turn-state';

/**
 * A model step streams for as long as the model talks; the heartbeat (sent on a ticker by the
 * activity, reaching Temporal every 0.5 s: create-worker.ts) proves it is alive. A dead worker's step
 * is taken over within a second or two by another worker's crash watch (services/worker/crash-watch/,
 * which needs no timeout); the heartbeat timeout is the backstop when no worker's crash watch acts,
 * long enough that a saturated Temporal recording heartbeats late never fails a healthy step (retry-policies.ts). No Temporal retries: the turn decides
 * (retry-decision.ts). Cancellation waits for the activity, which records the partial answer before it ends.
 */
const MODEL_STEP_OPTIONS: wf.ActivityOptions = {
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: WORKER_ACTIVITY_HEARTBEAT_TIMEOUT,
  retry: noRetry,
  cancellationType: wf.ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
};
const model = wf.proxyActivities<Activities>(MODEL_STEP_OPTIONS);

/** Temporal's `WorkerShutdown` failure of a step is retried as infrastructure (before: it ended the turn). */
const WORKER_SHUTDOWN_IS_INFRA_PATCH = 'worker-shutdown-is-infrastructure';

/** A step failure the turn gave up on; carried to the catch that announces it. */
export class TurnFailure extends Error {
  constructor(readonly failure: StepFailure) {
    super(failure.message);
  }
}

/** Compacts the session within the turn (phase `compacting`), then back to thinking unless the caller announces the next step. */
export async function compactInTurn(turn: TurnState, step: number, reason: 'threshold' | 'overflow', contextWindow: number) {
  const { input } = turn;
  await turn.report({ phase: 'compacting', step, details: reason === 'overflow' ? 'the conversation is longer than the model accepts' : 'the context is nearly full' });
  const result = await compaction.compactSession.executeWithOptions({ ...COMPACTION_OPTIONS, summary: `compact (${reason}) · ${input.settings.model}` }, [
    { session_id: input.session_id, compaction_id: entryIds.turnCompaction(turn.turnId, step, reason), model: input.settings.model, reason, turn_id: turn.turnId, context_window: contextWindow },
  ]);
  if (reason === 'overflow' || !turn.reportsThinkingBeforeNextStep) await turn.report({ phase: 'thinking', step, streaming: false });
  return result;
}

/** One model step, retried as the session's settings and the failure's class allow. */
export async function modelStepWithRetries(turn: TurnState, step: number) {
  const { input } = turn;
  let compactedForOverflow = false;
  // Provider and infrastructure failures, and waits the key's shared backoff imposed (nothing was sent),
  // are counted apart: each has its own budget. Only new activities mark shared waits, so a history
  // recorded before them replays with the same counts.
  const failures = { provider: 0, infrastructure: 0, shared: 0 };
  for (let attempt = 1; ; attempt++) {
    // Spending caps are checked before every attempt (outside the try: its stop is no step failure).
    await awaitBudget(turn, step);
    try {
      wf.setCurrentDetails(`step ${step} · model ${input.settings.model}${attempt > 1 ? ` · attempt ${attempt}` : ''}`);
      return await model.streamModelStep.executeWithOptions({ ...MODEL_STEP_OPTIONS, summary: `model step ${step} · ${input.settings.model}` }, [
        {
          session_id: input.session_id,
          project_path: input.project_path,
          turn_id: turn.turnId,
          step,
          attempt,
          model: input.settings.model,
          thinking_level: input.settings.thinking_level,
          approval: turn.policy,
          ...(input.subagent ? { only_tools: input.subagent.tools } : {}),
          // The turn's first state rides along with `turn.started` (beginTurn) when the session left it to the turn.
          ...(step === 0 ? { begin: { text: input.text, ...(input.images?.length ? { images: input.images } : {}), ...input.record, ...turn.startAnnouncement(step) } } : {}),
        },
      ]);
    } catch (err) {
      if (wf.isCancellation(err) || turn.scope.consideredCancelled) throw err;
      const failure = stepFailureOf(err, () => wf.patched(WORKER_SHUTDOWN_IS_INFRA_PATCH));
      const counted = failure.kind === 'infrastructure' ? ++failures.infrastructure : failure.sharedBackoff ? ++failures.shared : ++failures.provider;
      const decision = decideRetry(failure, counted, { ...DEFAULT_RETRY_OPTIONS, autoRetry: input.settings.auto_retry });
      // Too long for the model: compact, then try the step once more.
      if (decision.action === 'compact' && !compactedForOverflow && input.settings.auto_compaction) {
        compactedForOverflow = true;
        const compacted = await compactInTurn(turn, step, 'overflow', 0);
        if (compacted.compacted) continue;
      }
      if (decision.action !== 'retry') {
        const why =
          decision.action === 'compact'
            ? compactedForOverflow
              ? 'still too long for the model after compacting'
              : 'the conversation is longer than the model accepts and auto-compaction is off'
            : decision.reason;
        throw new TurnFailure({ ...failure, message: `${failure.message} (${why})` });
      }
      const maxAttempts = maxAttemptsOf(failure);
      await turn.report({ phase: 'retrying', step, retry_attempt: attempt, details: failure.message });
      await turn.publish([
        { type: 'retry.scheduled', turn_id: turn.turnId, step, attempt: counted, max_attempts: maxAttempts, delay_ms: decision.delayMs, kind: failure.kind, reason: failure.message },
      ]);
      // A durable wait the person can cut short (abort_retry): the turn then ends with this error.
      if (decision.delayMs > 0 && (await wf.condition(() => turn.retryAborted, decision.delayMs))) {
        throw new TurnFailure({ ...failure, message: `${failure.message} (retry cancelled)` });
      }
      // Streaming again: clients leave the retry notice as the next attempt starts.
      await turn.report({ phase: 'thinking', step, streaming: true });
    }
  }
}
