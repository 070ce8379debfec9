import * as wf from '@temporalio/workflow';
import type { QueuedPrompt } from '../../contracts/session-workflow';
import { turnId, turnWorkflowId } from '../../contracts/workflow-ids';
import { turnWorkflow } from '../turn/turn-workflow';
import { inheritedSearchAttributes } from '../search-attributes';
import { stateEvent, statePart } from './session-events';
import type { SessionManager } from './session-manager';
import { summaryOf } from './summary';
import { applyIntents } from './turn-commands';

/** Patch id of turns that publish their own `session.state` (2026-11); deprecate once no older turn runs. */
const TURN_PUBLISHES_STATE = 'turn-publishes-state';
/**
 * Patch id (2026-11) of a turn that gets in its start input what clients asked of it before its child
 * existed (steering, an interrupt), instead of signals sent once the child has started: those came a
 * workflow task or two after the start, and a quick first step could outrun them (an interrupt answered
 * "pending from its start" arrived after the model was called again). Asked only when there is such an
 * intent, so a plain turn's start records no marker. Deprecate once no older session run is open.
 */
const TURN_INTENTS_IN_INPUT = 'turn-intents-in-input';

/**
 * Runs the head of the queue as a child `turnWorkflow` and announces its end. A turn that cannot even
 * start (or fails as a workflow) ends as an error; the session goes on.
 */
export async function runNextTurn(manager: SessionManager): Promise<void> {
  const { state, events } = manager;
  const next = state.startNext();
  if (!next) return;
  // Where the turn's events begin, so a client that connects mid-turn gets them from there.
  state.startingTurn = true;
  let announcesStart = false;
  try {
    const after = await lastEventBeforeTurn(manager);
    announcesStart = after !== null;
    if (after !== null) {
      // The turn publishes its first state itself (with `turn.started`): this task only starts it.
      manager.syncAttributes();
      state.turnStartSeq = after + 1;
    } else {
      state.turnStartSeq = (await manager.publishState()).first_seq ?? null;
    }
  } finally {
    state.startingTurn = false;
  }
  const id = turnId(next.turn_number);
  // Aborted while it was being chosen (an intent only recorded under `turn-command-intents`): it never runs.
  const abortedBeforeStart = state.intents.peek(id)?.abort === true;
  const started = abortedBeforeStart ? Promise.resolve({ outcome: 'aborted' as const, steps: 0 }) : startTurn(manager, next, announcesStart)
    .then(async (handle) => {
      manager.child = handle;
      await applyIntents(manager, id);
      await manager.deliverPart();
      await manager.deliverBudget();
      return handle.result();
    })
    .catch((err: unknown) => ({ outcome: 'error' as const, failure: err }));
  const outcome = await started;
  manager.releaseChild();
  // Released before anything is announced: whoever hears `turn.finished` or `idle` can prompt at once.
  state.finishTurn(outcome.outcome);
  const failure = 'failure' in outcome ? outcome.failure : undefined;
  manager.syncAttributes();
  await events.publish([
    ...(failure !== undefined ? [{ turn_id: id, event: { type: 'error' as const, code: 'INTERNAL', message: `turn ${id} failed: ${messageOf(failure)}`, turn_id: id } }] : []),
    { turn_id: id, event: { type: 'turn.finished', turn_id: id, outcome: outcome.outcome, ...('steps' in outcome ? { steps: outcome.steps } : {}) } },
    { turn_id: id, event: stateEvent(state) },
  ]);
}

/**
 * The sequence of the session's last event when the turn about to start may announce itself
 * (`turns_announce_start`), else null (the session publishes the turn's first state, as before). Between
 * turns only the session publishes on its stream (a compaction's, a command's or a revert's own events
 * are followed by its state), so once its publishes have settled, the turn's first event is the next
 * one: a client reading from there gets the turn's events from its first, and nothing older. Unknown
 * (null) in a run that has published nothing yet, or when a publish did not say where it stored.
 */
async function lastEventBeforeTurn(manager: SessionManager): Promise<number | null> {
  if (!manager.turnsAnnounceStart) return null;
  await manager.events.drained();
  return manager.events.lastSeq;
}

/** The steering and interrupt a client sent to `turn` before its child existed, taken for its start input (see TURN_INTENTS_IN_INPUT). */
function intentsForStart(manager: SessionManager, turn: string): { steering?: string[]; interrupted?: true } {
  const pending = manager.state.intents.peek(turn);
  if (!pending || (pending.steering.length === 0 && !pending.interrupt) || !wf.patched(TURN_INTENTS_IN_INPUT)) return {};
  manager.state.intents.take(turn);
  return { ...(pending.steering.length > 0 ? { steering: [...pending.steering] } : {}), ...(pending.interrupt ? { interrupted: true as const } : {}) };
}

function startTurn(manager: SessionManager, next: QueuedPrompt, announcesStart: boolean): Promise<wf.ChildWorkflowHandle<typeof turnWorkflow>> {
  const { state } = manager;
  const record = state.record!;
  // Taken now: commands that come while the child is being started still reach it by signal (applyIntents).
  const intents = intentsForStart(manager, turnId(next.turn_number));
  const attributes = inheritedSearchAttributes('thinking');
  // Runs started with the flag need no patch; older runs ask it (docs/workflow-versioning.md).
  const publishesState = manager.turnsPublishState || wf.patched(TURN_PUBLISHES_STATE);
  manager.childPublishesState = publishesState;
  // Set before the child's start command, in the same activation: the view readers see names it at once.
  const viewInMemo = publishesState && manager.turnsKeepView;
  state.turnKeepsView = viewInMemo;
  return wf.startChild(turnWorkflow, {
    workflowId: turnWorkflowId(state.sessionId, next.turn_number),
    taskQueue: wf.workflowInfo().taskQueue,
    args: [
      {
        session_id: state.sessionId,
        project_path: record.project_path,
        turn_number: next.turn_number,
        text: next.text,
        ...(next.images?.length ? { images: next.images } : {}),
        ...(next.budget ? { budget: next.budget } : {}),
        ...intents,
        settings: record.settings,
        record: { last_turn: record.last_turn, requests: record.requests },
        progress_acks: true,
        thinking_before_next_step: true,
        // This code runs local activities in order; the turn needs no patch marker to know it.
        local_activities_in_order: true,
        ...(publishesState ? { publishes_state: true, session_part: statePart(state), reports_by_activity: true, ...(announcesStart ? { announces_start: true } : {}), ...(viewInMemo ? { view_in_memo: true } : {}) } : {}),
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
