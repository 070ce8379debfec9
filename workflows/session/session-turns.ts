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
 * Runs the head of the queue as a child `turnWorkflow` and announces its end. A turn that cannot even
 * start (or fails as a workflow) ends as an error; the session goes on.
 */
export async function runNextTurn(manager: SessionManager): Promise<void> {
  const { state, events } = manager;
  const next = state.startNext();
  if (!next) return;
  // Where the turn's events begin, so a client that connects mid-turn gets them from there.
  state.startingTurn = true;
  try {
    state.turnStartSeq = (await manager.publishState()).first_seq ?? null;
  } finally {
    state.startingTurn = false;
  }
  const id = turnId(next.turn_number);
  // Aborted while it was being chosen (an intent only recorded under `turn-command-intents`): it never runs.
  const abortedBeforeStart = state.intents.peek(id)?.abort === true;
  const started = abortedBeforeStart ? Promise.resolve({ outcome: 'aborted' as const, steps: 0 }) : startTurn(manager, next)
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

function startTurn(manager: SessionManager, next: QueuedPrompt): Promise<wf.ChildWorkflowHandle<typeof turnWorkflow>> {
  const { state } = manager;
  const record = state.record!;
  const attributes = inheritedSearchAttributes('thinking');
  // Runs started with the flag need no patch; older runs ask it (docs/workflow-versioning.md).
  const publishesState = manager.turnsPublishState || wf.patched(TURN_PUBLISHES_STATE);
  manager.childPublishesState = publishesState;
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
        settings: record.settings,
        record: { last_turn: record.last_turn, requests: record.requests },
        progress_acks: true,
        thinking_before_next_step: true,
        ...(publishesState ? { publishes_state: true, session_part: statePart(state) } : {}),
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
