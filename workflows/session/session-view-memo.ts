import * as wf from '@temporalio/workflow';
import { liveViewOf, SESSION_VIEW_MEMO_KEY, type SessionLiveView } from '../../contracts/session-live-view';
import type { SessionState } from './session-state';

/** Patch id (2026-11) of the session's view kept in its memo; deprecate once no older run is open. */
export const SESSION_VIEW_MEMO = 'session-view-memo';

/**
 * Keeps the session's live view in its memo (contracts/session-live-view.ts), so reads need no worker.
 * One waiter for every change rather than an upsert at each place the state changes: a condition is
 * evaluated after every activation, so whatever changed the state (an update, a turn's report, a
 * timer) is followed by the upsert in the same workflow task, with the command that answers it.
 * Upserts only what differs from the last one (each upsert is a history event).
 */
export function keepViewInMemo(state: SessionState): void {
  let last = '';
  const current = (): string => JSON.stringify(liveViewOf(state.snapshot()));
  void (async () => {
    for (;;) {
      await wf.condition(() => current() !== last);
      last = current();
      wf.upsertMemo({ [SESSION_VIEW_MEMO_KEY]: JSON.parse(last) as SessionLiveView });
    }
  })();
}

/** The memo a run continued as new starts with: its view carries over until the new run's first upsert. */
export function viewMemo(state: SessionState): Record<string, unknown> {
  return { [SESSION_VIEW_MEMO_KEY]: liveViewOf(state.snapshot()) };
}
