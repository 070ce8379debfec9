import * as wf from '@temporalio/workflow';
import type { Activities } from '../../activities';
import {
  promptUpdate,
  sessionStateQuery,
  turnWorkflowId,
  type PromptAccepted,
  type SessionWorkflowInput,
  type SessionWorkflowResult,
} from '../../contracts/workflow-messages';
import { turnWorkflow } from '../turn/turn-workflow';
import { SessionState, type QueuedTurn } from './session-state';
import { summaryOf } from './summary';

const store = wf.proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 ms', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 20, nonRetryableErrorTypes: ['SESSION_NOT_FOUND'] },
});

const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60 * 1000;

/**
 * One entity workflow per session (`session:<id>`). Prompts arrive as updates (validated, so a busy
 * session rejects before anything is written); each runs as a child `turnWorkflow`. The workflow
 * completes after `idle_timeout_ms` without a prompt and is re-created on the next one; it continues
 * as new when Temporal suggests it, carrying only the turn counter.
 */
export async function sessionWorkflow(raw: SessionWorkflowInput): Promise<SessionWorkflowResult> {
  const input = {
    ...raw,
    thinking_level: raw.thinking_level ?? 'off',
    idle_timeout_ms: raw.idle_timeout_ms ?? DEFAULT_IDLE_TIMEOUT_MS,
  };
  const state = new SessionState(input);

  wf.setHandler(sessionStateQuery, () => state.snapshot());
  wf.setHandler(
    promptUpdate,
    async (prompt): Promise<PromptAccepted> => {
      state.claim();
      await wf.condition(() => state.loaded);
      const turn = state.enqueue(prompt.text);
      await wf.condition(() => state.started.has(turn.number));
      return { turn_id: state.turnIdOf(turn), turn_number: turn.number, agent_state: 'thinking' };
    },
    { validator: (prompt) => state.validatePrompt(prompt) },
  );

  if (!state.loaded) {
    state.lastTurn = (await store.loadSessionContext(input.session_id)).last_turn;
    state.loaded = true;
  }

  for (;;) {
    const woke = await wf.condition(() => state.queue.length > 0, input.idle_timeout_ms);
    if (!woke && !state.busy) break;
    if (state.queue.length === 0) continue;
    await runTurn(state, state.queue.shift() as QueuedTurn);
    if (wf.workflowInfo().continueAsNewSuggested && state.queue.length === 0 && !state.busy) {
      await wf.condition(wf.allHandlersFinished);
      return wf.continueAsNew<typeof sessionWorkflow>({ ...input, last_turn: state.lastTurn });
    }
  }
  await wf.condition(wf.allHandlersFinished);
  return { reason: 'idle', last_turn: state.lastTurn };
}

async function runTurn(state: SessionState, turn: QueuedTurn): Promise<void> {
  const { session_id, model, thinking_level } = state.input;
  const turnId = state.turnIdOf(turn);
  state.activeTurn = turnId;
  let failure: string | undefined;
  try {
    const child = await wf.startChild(turnWorkflow, {
      workflowId: turnWorkflowId(session_id, turn.number),
      args: [{ session_id, turn_number: turn.number, text: turn.text, model, thinking_level }],
      staticSummary: summaryOf(turn.text),
      parentClosePolicy: 'TERMINATE',
    });
    state.started.add(turn.number);
    await child.result();
  } catch (err) {
    // The turn reports its own errors as events; this only catches a child that could not run.
    state.started.add(turn.number);
    failure = err instanceof Error ? err.message : String(err);
  }
  const events: Parameters<Activities['publishEvents']>[1] = [];
  if (failure !== undefined) {
    events.push({ id: `${turnId}:failed`, turn_id: turnId, event: { type: 'error', code: 'INTERNAL', message: `turn ${turnId} failed: ${failure}` } });
  }
  events.push({
    id: `${turnId}:idle`,
    turn_id: turnId,
    event: { type: 'session.state', phase: 'idle', model, thinking_level, queue_length: state.queue.length },
  });
  await store.publishEvents(session_id, events);
  state.release();
}
