import * as wf from '@temporalio/workflow';
import { liveViewOf, SESSION_VIEW_MEMO_KEY, type SessionLiveView } from '../../contracts/session-live-view';
import type { SessionState } from './session-state';

/** Patch id (2026-11) of the session's view kept in its memo; deprecate once no older run is open. */
export const SESSION_VIEW_MEMO = 'session-view-memo';
/** Patch id (2026-11) of one upsert for a turn's start (see keepViewInMemo); deprecate once no older run is open. */
export const SESSION_VIEW_MEMO_SETTLED = 'session-view-memo-settled';

/**
 * Keeps the session's live view in its memo (contracts/session-live-view.ts), so reads need no worker.
 * One waiter for every change rather than an upsert at each place the state changes: a condition is
 * evaluated after every activation, so whatever changed the state (an update, a turn's report, a
 * timer) is followed by the upsert in the same workflow task, with the command that answers it.
 * Upserts only what differs from the last one (each upsert is a history event).
 */
export function keepViewInMemo(state: SessionState, settled = false): void {
  let last = '';
  const current = (): string => JSON.stringify(liveViewOf(state.snapshot()));
  // Settled (SESSION_VIEW_MEMO_SETTLED): not while a turn is being started, from the prompt taken to
  // the state that announces it published. That all happens in one workflow task (its local
  // activities keep the task open), so readers, who see the memo once the task completes, miss
  // nothing; the task records one upsert instead of three (the queue, the phase, the turn's start).
  const starting = (): boolean => settled && (state.canStartTurn || state.startingTurn);
  void (async () => {
    for (;;) {
      await wf.condition(() => !starting() && current() !== last);
      last = current();
      wf.upsertMemo({ [SESSION_VIEW_MEMO_KEY]: JSON.parse(last) as SessionLiveView });
    }
  })();
}

/** The memo a run continued as new starts with: its view carries over until the new run's first upsert. */
export function viewMemo(state: SessionState): Record<string, unknown> {
  return { [SESSION_VIEW_MEMO_KEY]: liveViewOf(state.snapshot()) };
}
