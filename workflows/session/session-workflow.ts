import * as wf from '@temporalio/workflow';
import { sessionRecordSchema } from '../../contracts/session-settings';
import {
  abortRetryUpdate,
  abortUpdate,
  approvalUpdate,
  clearQueueUpdate,
  compactUpdate,
  promptUpdate,
  sessionStateQuery,
  sessionWorkflowInputSchema,
  setSettingsUpdate,
  steerUpdate,
  interruptUpdate,
  abortUserCommandUpdate,
  userCommandUpdate,
  type QueuedPrompt,
  type SessionWorkflowInput,
  type SessionWorkflowResult,
} from '../../contracts/session-workflow';
import { turnAbortRetrySignal, turnAbortSignal, turnApprovalSignal, turnInterruptSignal, turnProgressSignal, turnSteerSignal } from '../../contracts/turn-workflow';
import { turnId, turnWorkflowId } from '../../contracts/workflow-ids';
import { turnWorkflow } from '../turn/turn-workflow';
import { COMPACTION_OPTIONS, SessionEventQueue, compaction, local, stateEvent, userCommands } from './session-events';
import { SessionState } from './session-state';
import { summaryOf } from './summary';
import { FailureType } from '../../contracts/failures';
import { inheritedSearchAttributes, sa, upsertIfChanged } from '../search-attributes';

/** How long an approval for a call the turn has not reported yet may wait for it. */
const APPROVAL_ARRIVAL_MS = 3_000;

/**
 * One entity workflow per session (`session:<id>`), the owner of the session's phase. Commands arrive
 * as updates with validators (a rejected one never reaches history); each prompt runs as a child
 * `turnWorkflow`, one at a time, from a FIFO queue. What concerns the running turn (abort, steer,
 * approvals) is forwarded to it as a signal; the turn reports progress back and the session publishes
 * `session.state`. A run completes after `idle_timeout_ms` without a command (the store keeps
 * everything it needs to come back) and continues as new when Temporal suggests it, carrying its state.
 */
export async function sessionWorkflow(raw: SessionWorkflowInput): Promise<SessionWorkflowResult> {
  const input = sessionWorkflowInputSchema.parse(raw);
  const state = new SessionState(input.session_id, input.carried);
  const events = new SessionEventQueue(input.session_id);
  let child: wf.ChildWorkflowHandle<typeof turnWorkflow> | undefined;
  const persistSettings = () =>
    local.persistSessionRecord({ session_id: input.session_id, last_turn: state.record!.last_turn, requests: state.record!.requests, settings: state.record!.settings });
  /** The phase and model as search attributes, so the Temporal UI lists sessions by them. */
  const syncAttributes = () =>
    upsertIfChanged([{ key: sa.phase, value: state.phase }, ...(state.record ? [{ key: sa.model, value: state.record.settings.model }] : [])]);
  const publishState = () => {
    syncAttributes();
    return publishStateEvent();
  };
  const publishStateEvent = () => events.publish([{ event: stateEvent(state), ...(state.activeTurn ? { turn_id: state.activeTurn } : {}) }]);

  wf.setHandler(sessionStateQuery, () => state.snapshot());
  wf.setHandler(
    promptUpdate,
    async (prompt) => {
      // Steering a running turn: delivered to it, no new turn.
      const running = state.activeTurn;
      if (prompt.behavior === 'steer' && running && child) {
        await child.signal(turnSteerSignal, { text: prompt.text });
        return { turn_id: running, turn_number: Number(running.slice(1)), agent_state: state.phase, queued: false, duplicate: false, steered: true };
      }
      if (state.loaded) return state.accept(prompt);
      state.claimUnloaded();
      try {
        await wf.condition(() => state.loaded);
      } finally {
        state.releaseUnloaded();
      }
      return state.accept(prompt);
    },
    { validator: (prompt) => state.validatePrompt(prompt) },
  );
  // Answers once the turn has ended and its end was announced, so "aborted" is true when told.
  wf.setHandler(abortUpdate, async () => {
    const turn = state.activeTurn;
    if (!turn || !child) return { aborted: false, turn_id: null };
    await child.signal(turnAbortSignal);
    await wf.condition(() => state.activeTurn !== turn);
    return { aborted: true, turn_id: turn };
  });
  wf.setHandler(abortRetryUpdate, async () => {
    const turn = state.activeTurn;
    if (!turn || !child || state.phase !== 'retrying') return { cancelled: false, turn_id: null };
    await child.signal(turnAbortRetrySignal);
    await wf.condition(() => state.activeTurn !== turn);
    return { cancelled: true, turn_id: turn };
  });
  wf.setHandler(interruptUpdate, async () => {
    const turn = state.activeTurn;
    if (!turn || !child) return { pending: false, turn_id: null };
    if (!state.interruptPending) {
      state.interruptPending = true;
      await child.signal(turnInterruptSignal);
      await publishState();
    }
    return { pending: true, turn_id: turn };
  });
  wf.setHandler(steerUpdate, async (cmd) => {
    const turn = state.activeTurn;
    if (!turn || !child) return { delivered: false, turn_id: null };
    await child.signal(turnSteerSignal, { text: cmd.text });
    return { delivered: true, turn_id: turn };
  });
  wf.setHandler(
    approvalUpdate,
    async (cmd) => {
      // Announced but not yet reported as waiting: give the turn a moment (it reports right after the step).
      const turn = state.activeTurn;
      await wf.condition(() => state.isPending(cmd.tool_call_id) || state.activeTurn !== turn, APPROVAL_ARRIVAL_MS);
      if (!state.isPending(cmd.tool_call_id)) {
        throw wf.ApplicationFailure.nonRetryable(`no tool call ${cmd.tool_call_id} is waiting for approval`, FailureType.UNKNOWN_TOOL_CALL);
      }
      const { settingsChanged } = state.applyApproval(cmd);
      if (child) await child.signal(turnApprovalSignal, cmd);
      // The turn reports what it does next (tool_execution); only a settings change is news here.
      if (settingsChanged) {
        await persistSettings();
        await publishState();
      }
      return { resolved: true };
    },
    { validator: (cmd) => state.validateApproval(cmd) },
  );
  wf.setHandler(
    setSettingsUpdate,
    async (change) => {
      await wf.condition(() => state.loaded);
      if (state.applySettings(change)) {
        await persistSettings();
        await publishState();
      }
      return state.settings;
    },
    { validator: (change) => state.validateSettings(change) },
  );
  wf.setHandler(
    compactUpdate,
    async ({ instructions }) => {
      state.compacting = true;
      try {
        await wf.condition(() => state.loaded);
        state.phase = 'compacting';
        await publishState();
        const settings = state.settings;
        return await compaction.compactSession.executeWithOptions({ ...COMPACTION_OPTIONS, summary: `compact (manual) · ${settings.model}` }, [
          { session_id: input.session_id, compaction_id: `compact:${wf.uuid4()}`, model: settings.model, reason: 'manual', context_window: 0, ...(instructions ? { instructions } : {}) },
        ]);
      } finally {
        state.compacting = false;
        if (!state.busy) state.phase = 'idle';
        await publishState();
      }
    },
    { validator: (_cmd) => state.validateCompact() },
  );
  let commandScope: wf.CancellationScope | undefined;
  wf.setHandler(
    userCommandUpdate,
    async (cmd) => {
      state.runningCommand = true;
      try {
        await wf.condition(() => state.loaded);
        state.phase = 'tool_execution';
        await publishState();
        const scope = new wf.CancellationScope();
        commandScope = scope;
        return await scope.run(() =>
          userCommands.runUserCommand({ session_id: input.session_id, project_path: state.record!.project_path, id: `cmd:${wf.uuid4()}`, ...cmd }),
        );
      } catch (err) {
        if (wf.isCancellation(err)) return { output: 'the command was stopped', exit_code: null, cancelled: true, truncated: false };
        throw err;
      } finally {
        commandScope = undefined;
        state.runningCommand = false;
        if (!state.busy) state.phase = 'idle';
        await publishState();
      }
    },
    { validator: (cmd) => state.validateUserCommand(cmd) },
  );
  wf.setHandler(abortUserCommandUpdate, () => {
    if (!commandScope) return { stopped: false };
    commandScope.cancel();
    return { stopped: true };
  });
  wf.setHandler(clearQueueUpdate, async () => {
    const cleared = state.clearQueue();
    if (cleared > 0) await publishState();
    return { cleared };
  });
  wf.setHandler(turnProgressSignal, (progress) => {
    if (state.applyProgress(progress)) void publishState();
  });

  if (!state.record) state.record = sessionRecordSchema.parse(await local.loadSessionRecord(input.session_id));

  for (;;) {
    const woke = await wf.condition(() => state.queue.length > 0 && !state.runningCommand, input.idle_timeout_ms);
    if (woke) {
      const next = state.startNext() as QueuedPrompt;
      // Where the turn's events begin, so a client that connects mid-turn gets them from there.
      state.turnStartSeq = (await publishState()).first_seq ?? null;
      // A turn that cannot even start (or fails as a workflow) ends as an error; the session goes on.
      const outcome = await startTurn(state, next)
        .then((handle) => {
          child = handle;
          return handle.result();
        })
        .catch((err: unknown) => ({ outcome: 'error' as const, failure: err }));
      child = undefined;
      const id = turnId(next.turn_number);
      // Released before anything is announced: whoever hears `turn.finished` or `idle` can prompt at once.
      state.finishTurn();
      const failure = 'failure' in outcome ? outcome.failure : undefined;
      syncAttributes();
      await events.publish([
        ...(failure !== undefined ? [{ turn_id: id, event: { type: 'error' as const, code: 'INTERNAL', message: `turn ${id} failed: ${messageOf(failure)}`, turn_id: id } }] : []),
        { turn_id: id, event: { type: 'turn.finished', turn_id: id, outcome: outcome.outcome, ...('steps' in outcome ? { steps: outcome.steps } : {}) } },
        { turn_id: id, event: stateEvent(state) },
      ]);
      if (wf.workflowInfo().continueAsNewSuggested && !state.busy) {
        await wf.condition(wf.allHandlersFinished);
        if (!state.busy) return wf.continueAsNew<typeof sessionWorkflow>({ ...input, carried: { record: state.record, queue: state.queue } });
      }
      continue;
    }
    // Idle for the whole timeout: persist what a later run needs, then end unless a prompt came in.
    await local.persistSessionRecord({ session_id: input.session_id, last_turn: state.record.last_turn, requests: state.record.requests });
    await wf.condition(wf.allHandlersFinished);
    if (!state.busy) break;
  }
  return { reason: 'idle', last_turn: state.record.last_turn };
}

async function startTurn(state: SessionState, next: QueuedPrompt): Promise<wf.ChildWorkflowHandle<typeof turnWorkflow>> {
  const record = state.record!;
  const info = wf.workflowInfo();
  const attributes = inheritedSearchAttributes('thinking');
  return wf.startChild(turnWorkflow, {
    workflowId: turnWorkflowId(state.sessionId, next.turn_number),
    taskQueue: info.taskQueue,
    args: [
      {
        session_id: state.sessionId,
        project_path: record.project_path,
        turn_number: next.turn_number,
        text: next.text,
        settings: record.settings,
        record: { last_turn: record.last_turn, requests: record.requests },
      },
    ],
    staticSummary: summaryOf(next.text),
    parentClosePolicy: 'TERMINATE',
    ...(attributes ? { typedSearchAttributes: attributes } : {}),
  });
}

function messageOf(err: unknown): string {
  if (err instanceof wf.ChildWorkflowFailure && err.cause) return err.cause.message;
  return err instanceof Error ? err.message : String(err);
}
