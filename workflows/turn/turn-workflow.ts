import * as wf from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { AgentEvent } from '../../contracts/agent-events';
import {
  turnAbortRetrySignal,
  turnAbortSignal,
  turnInterruptSignal,
  turnApprovalSignal,
  turnProgressSignal,
  turnSteerSignal,
  turnWorkflowInputSchema,
  type TurnOutcome,
  type TurnProgress,
  type TurnWorkflowInput,
  type TurnWorkflowResult,
} from '../../contracts/turn-workflow';
import { turnId as turnIdOf } from '../../contracts/workflow-ids';
import { DEFAULT_COMPACTION_THRESHOLD } from '../../contracts/session-settings';
import { COMPACTION_OPTIONS, compaction } from '../session/session-events';
import { WORKER_ACTIVITY_HEARTBEAT_TIMEOUT, noRetry, storeRetry } from '../retry-policies';
import { DEFAULT_RETRY_OPTIONS, INFRA_RETRY, decideRetry } from './retry-decision';
import { errorCodeOf, stepFailureOf, type StepFailure } from './step-failure';
import { ToolBatch } from './tool-batch';
import { sa, upsertIfChanged } from '../search-attributes';

const local = wf.proxyLocalActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: storeRetry });

/**
 * A model step streams for as long as the model talks; the heartbeat (sent on a ticker by the
 * activity, reaching Temporal every 0.5 s: create-worker.ts) proves it is alive. A dead worker's step
 * is taken over within a second or two by another worker's crash watch (services/worker/crash-watch/,
 * which needs no timeout); the heartbeat timeout is the backstop when no other worker watches (ten
 * heartbeats: a busy event loop never fails a healthy step). No Temporal retries: the turn decides
 * (retry-decision.ts). Cancellation waits for the activity, which records the partial answer before it ends.
 */
const MODEL_STEP_OPTIONS: wf.ActivityOptions = {
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: WORKER_ACTIVITY_HEARTBEAT_TIMEOUT,
  retry: noRetry,
  cancellationType: wf.ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
};
const model = wf.proxyActivities<Activities>(MODEL_STEP_OPTIONS);



/**
 * One prompt turn (`session:<id>:turn:<n>`): its first model step records the user message (so the
 * turn's first workflow task schedules the model at once), then model steps stream until the
 * model ends, the step limit, an abort or a terminal error, and returns how it went. The session
 * workflow publishes `turn.finished` and the next state once it has released the session.
 */
export async function turnWorkflow(raw: TurnWorkflowInput): Promise<TurnWorkflowResult> {
  const input = turnWorkflowInputSchema.parse(raw);
  const turn_id = turnIdOf(input.turn_number);
  const sid = input.session_id;
  const steering: string[] = [...input.steering];
  let retryAborted = false;
  const scope = new wf.CancellationScope();
  wf.setHandler(turnAbortSignal, async () => {
    scope.cancel();
    // The fast path: running activities hear this within milliseconds (heartbeats take up to a second).
    await local.announceTurnCancel({ session_id: sid, turn_id }).catch(() => undefined);
  });
  wf.setHandler(turnSteerSignal, ({ text }) => void steering.push(text));
  wf.setHandler(turnAbortRetrySignal, () => void (retryAborted = true));
  let interrupted = false;
  wf.setHandler(turnInterruptSignal, () => void (interrupted = true));
  let batch: ToolBatch | undefined;
  // `always` applies to the rest of this turn too (the session keeps it for later turns).
  const policy = { ...input.settings.approval, always_allow: [...input.settings.approval.always_allow] };
  wf.setHandler(turnApprovalSignal, ({ tool_call_id, decision, reason }) => {
    const call = batch?.calls.find((c) => c.id === tool_call_id);
    if (!batch?.decide(tool_call_id, decision, reason) || !call) return;
    if (decision === 'always' && !policy.always_allow.includes(call.name)) policy.always_allow.push(call.name);
  });
  const publish = (events: AgentEvent[]) =>
    local.publishEvents(sid, events.map((event) => ({ id: `${turn_id}:${wf.uuid4()}`, turn_id, event })));
  const report = (p: Omit<TurnProgress, 'turn_id'>) => {
    upsertIfChanged([{ key: sa.phase, value: p.phase }]);
    wf.setCurrentDetails(`step ${p.step} · ${p.phase}${p.details ? ` · ${p.details}` : ''}`);
    const parent = wf.workflowInfo().parent;
    if (parent) void wf.getExternalWorkflowHandle(parent.workflowId).signal(turnProgressSignal, { turn_id, ...p }).catch(() => undefined);
  };

  let steps = input.first_step;
  let outcome: TurnOutcome = 'done';
  let continueAt: number | undefined;
  try {
    await scope.run(async () => {
      for (let step = input.first_step; step < input.max_steps; step++) {
        // A long job: history grows with every step; a fresh run carries on where this one stops.
        if (step > input.first_step && wf.workflowInfo().continueAsNewSuggested) {
          continueAt = step;
          return;
        }
        steps = step + 1;
        const result = await modelStepWithRetries(step);
        if (result.tool_calls.length > 0) {
          batch = new ToolBatch({ session_id: sid, project_path: input.project_path, turn_id, step, policy, publish, report, steered: () => steering.length > 0 }, result.tool_calls);
          await batch.run();
          const done = batch;
          batch = undefined;
          await local.recordToolResults({ session_id: sid, turn_id, step, calls: done.dispositions(undefined) });
          report({ phase: 'thinking', step: step + 1, streaming: false });
        }
        let steered = 0;
        for (const text of steering.splice(0)) {
          await local.recordSteering({ session_id: sid, turn_id, step, index: steered++, text });
        }
        if (result.tool_calls.length === 0 && steered === 0) break;
        // Interrupted: this step and its tools are done; the model is not called again.
        if (interrupted) {
          await publish([{ type: 'notice', level: 'info', message: `interrupted: the turn stopped after step ${step + 1}; the model has not seen what came after its last answer (tool results, steering)` }]);
          break;
        }
        // The next step would start past the threshold: compact first (the context shrinks to a summary).
        if (input.settings.auto_compaction && result.context_tokens > DEFAULT_COMPACTION_THRESHOLD * result.context_window) {
          await compact(step, 'threshold', result.context_window);
        }
      }
    });
  } catch (err) {
    // An activity that heard the abort on the fast path fails before Temporal's cancel reaches it.
    if (wf.isCancellation(err) || scope.consideredCancelled) {
      outcome = 'aborted';
      // Every tool call the model made gets a result, or the next request to the provider fails.
      const cut = batch;
      if (cut) await wf.CancellationScope.nonCancellable(() => local.recordToolResults({ session_id: sid, turn_id, step: cut.step, calls: cut.dispositions('aborted') }));
    } else {
      outcome = 'error';
      const failure = err instanceof TurnFailure ? err.failure : stepFailureOf(err);
      await wf.CancellationScope.nonCancellable(() =>
        publish([
          {
            type: 'error',
            code: errorCodeOf(failure),
            message: failure.message,
            turn_id,
            kind: failure.kind,
            ...(failure.provider ? { provider: failure.provider } : {}),
            ...(failure.status !== undefined ? { status: failure.status } : {}),
          },
        ]),
      );
    }
  }
  if (continueAt !== undefined && outcome === 'done') {
    await wf.condition(wf.allHandlersFinished);
    return wf.continueAsNew<typeof turnWorkflow>({
      ...input,
      first_step: continueAt,
      settings: { ...input.settings, approval: policy },
      steering: steering.splice(0),
    });
  }
  return { turn_id, outcome, steps };

  /** Compacts the session within the turn (phase `compacting`), then back to thinking. */
  async function compact(step: number, reason: 'threshold' | 'overflow', contextWindow: number) {
    report({ phase: 'compacting', step, details: reason === 'overflow' ? 'the conversation is longer than the model accepts' : 'the context is nearly full' });
    const result = await compaction.compactSession.executeWithOptions({ ...COMPACTION_OPTIONS, summary: `compact (${reason}) · ${input.settings.model}` }, [
      { session_id: sid, compaction_id: `${turn_id}:s${step}:compact:${reason}`, model: input.settings.model, reason, turn_id, context_window: contextWindow },
    ]);
    report({ phase: 'thinking', step, streaming: false });
    return result;
  }

  /** One model step, retried as the session's settings and the failure's class allow. */
  async function modelStepWithRetries(step: number) {
    let compactedForOverflow = false;
    // Provider and infrastructure failures are counted apart: each has its own budget.
    const failures = { provider: 0, infrastructure: 0 };
    for (let attempt = 1; ; attempt++) {
      try {
        wf.setCurrentDetails(`step ${step} · model ${input.settings.model}${attempt > 1 ? ` · attempt ${attempt}` : ''}`);
        const result = await model.streamModelStep.executeWithOptions({ ...MODEL_STEP_OPTIONS, summary: `model step ${step} · ${input.settings.model}` }, [{
          session_id: sid,
          project_path: input.project_path,
          turn_id,
          step,
          attempt,
          model: input.settings.model,
          thinking_level: input.settings.thinking_level,
          approval: policy,
          ...(step === 0 ? { begin: { text: input.text, ...input.record } } : {}),
        }]);
        return result;
      } catch (err) {
        if (wf.isCancellation(err) || scope.consideredCancelled) throw err;
        const failure = stepFailureOf(err);
        const counted = failure.kind === 'infrastructure' ? ++failures.infrastructure : ++failures.provider;
        const decision = decideRetry(failure, counted, { ...DEFAULT_RETRY_OPTIONS, autoRetry: input.settings.auto_retry });
        // Too long for the model: compact, then try the step once more.
        if (decision.action === 'compact' && !compactedForOverflow && input.settings.auto_compaction) {
          compactedForOverflow = true;
          const compacted = await compact(step, 'overflow', 0);
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
        const maxAttempts = (failure.kind === 'infrastructure' ? INFRA_RETRY.maxRetries : DEFAULT_RETRY_OPTIONS.maxRetries) + 1;
        report({ phase: 'retrying', step, retry_attempt: attempt, details: failure.message });
        await publish([
          { type: 'retry.scheduled', turn_id, step, attempt: counted, max_attempts: maxAttempts, delay_ms: decision.delayMs, kind: failure.kind, reason: failure.message },
        ]);
        // A durable wait the person can cut short (abort_retry): the turn then ends with this error.
        if (decision.delayMs > 0 && (await wf.condition(() => retryAborted, decision.delayMs))) {
          throw new TurnFailure({ ...failure, message: `${failure.message} (retry cancelled)` });
        }
        // Streaming again: clients leave the retry notice as the next attempt starts.
        report({ phase: 'thinking', step, streaming: true });
      }
    }
  }
}

/** A step failure the turn gave up on; carried to the catch that announces it. */
class TurnFailure extends Error {
  constructor(readonly failure: StepFailure) {
    super(failure.message);
  }
}
