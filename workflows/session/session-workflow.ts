import * as wf from '@temporalio/workflow';
import { sessionRecordSchema } from '../../contracts/session-settings';
import { sessionWorkflowInputSchema, type SessionWorkflowInput, type SessionWorkflowResult } from '../../contracts/session-workflow';
import { EventQueue } from '../event-queue';
import { local } from './session-events';
import { SessionManager } from './session-manager';
import { SessionState } from './session-state';
import { runNextTurn } from './session-turns';
import { keepViewInMemo, SESSION_VIEW_MEMO, SESSION_VIEW_MEMO_SETTLED, viewMemo } from './session-view-memo';

/**
 * One entity workflow per session (`session:<id>`), the owner of the session's phase. Commands arrive
 * as updates with validators (a rejected one never reaches history; SessionManager); each prompt runs
 * as a child `turnWorkflow`, one at a time, from a FIFO queue. A run completes after `idle_timeout_ms`
 * without a command (the store keeps everything it needs to come back) and continues as new between
 * turns when Temporal suggests it, carrying its record and its queue: a session whose queue never
 * drains still keeps its history bounded.
 */
export async function sessionWorkflow(raw: SessionWorkflowInput): Promise<SessionWorkflowResult> {
  const input = sessionWorkflowInputSchema.parse(raw);
  const state = new SessionState(input.session_id, input.carried, input.access);
  const manager = new SessionManager(state, new EventQueue(input.session_id, 's', input.carried?.last_seq), input.turns_publish_state, input.turns_publish_state && input.turns_announce_start, input.turns_publish_state && input.turns_announce_start && input.turns_keep_view);
  manager.register();
  // Reads need no worker: the session's view is kept in its memo (older histories replay without it).
  const keepsView = wf.patched(SESSION_VIEW_MEMO);
  if (keepsView) keepViewInMemo(state, wf.patched(SESSION_VIEW_MEMO_SETTLED));

  if (!state.record) state.record = sessionRecordSchema.parse(await local.loadSessionRecord(input.session_id));
  const continueAsNewSuggested = () => wf.workflowInfo().continueAsNewSuggested;

  for (;;) {
    const woke = await wf.condition(() => state.canStartTurn || continueAsNewSuggested(), input.idle_timeout_ms);
    if (woke && continueAsNewSuggested()) {
      // Between turns: whatever else runs (a compaction, a command, a handler) finishes first.
      await wf.condition(() => !state.holdsRun && wf.allHandlersFinished());
      const lastSeq = manager.events.lastSeq;
      const next = { ...input, turns_publish_state: true, turns_announce_start: true, turns_keep_view: true, carried: { record: state.record, queue: state.queue, ...(lastSeq !== null ? { last_seq: lastSeq } : {}) } };
      if (keepsView) return wf.makeContinueAsNewFunc<typeof sessionWorkflow>({ memo: viewMemo(state) })(next);
      return wf.continueAsNew<typeof sessionWorkflow>(next);
    }
    if (woke) {
      await runNextTurn(manager);
      continue;
    }
    // Idle for the whole timeout: persist what a later run needs, then end unless a prompt came in.
    await local.persistSessionRecord({ session_id: input.session_id, last_turn: state.record.last_turn, requests: state.record.requests });
    await wf.condition(wf.allHandlersFinished);
    if (!state.busy) break;
  }
  return { reason: 'idle', last_turn: state.record.last_turn };
}
