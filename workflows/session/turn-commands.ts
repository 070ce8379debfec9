import * as wf from '@temporalio/workflow';
import type { AbortResult, SteerCommand, TurnCommand } from '../../contracts/session-workflow';
import { turnAbortRetrySignal, turnAbortSignal, turnInterruptSignal, turnSteerSignal } from '../../contracts/turn-workflow';
import type { SessionManager } from './session-manager';

/**
 * Patch id (2026-11) of abort, interrupt and steer applied to a turn whose child does not exist yet
 * (queued, or being started): recorded as intents instead of answered "nothing ran"; turns dropped
 * from the queue are announced as ended.
 */
export const TURN_COMMAND_INTENTS = 'turn-command-intents';

/**
 * The commands that concern a turn: abort, interrupt, steer (each naming its turn, or meaning the
 * running one, else the next queued one) and abort_retry. A turn whose child runs is signalled; one
 * whose child does not exist yet gets the command as an intent (SessionState.intents) that reaches it
 * right after its start (`applyIntents`). A child that has just ended answers "already ended".
 */

/**
 * Answers once the turn has ended, with how it ended: `aborted` is true only when it did. A queued
 * turn is dropped; one chosen but not started yet is ended without running (session-turns.ts) or,
 * started meanwhile, aborted right after its start.
 */
export async function abortTurn(m: SessionManager, cmd?: TurnCommand): Promise<AbortResult> {
  const s = m.state;
  const turn = s.commandTarget(cmd?.turn_id);
  if (!turn) return { aborted: false, turn_id: null };
  if (turn === s.activeTurn && m.child) {
    if (!(await m.signalChild(turnAbortSignal))) return { aborted: false, turn_id: turn, ended: true };
  } else {
    if (!wf.patched(TURN_COMMAND_INTENTS)) return { aborted: false, turn_id: null };
    if (s.dropQueued(turn)) {
      await announceDropped(m, [turn]);
      return { aborted: true, turn_id: turn };
    }
    s.intents.abort(turn);
  }
  await wf.condition(() => s.activeTurn !== turn);
  return s.intents.outcomeOf(turn) === 'aborted' ? { aborted: true, turn_id: turn } : { aborted: false, turn_id: turn, ended: true };
}

/** `pending: true` once the turn will stop at its next step boundary (a turn not started yet: from its start). */
export async function interruptTurn(m: SessionManager, cmd?: TurnCommand): Promise<{ pending: boolean; turn_id: string | null }> {
  const s = m.state;
  const turn = s.commandTarget(cmd?.turn_id);
  if (!turn) return { pending: false, turn_id: null };
  if (turn === s.activeTurn && m.child) {
    if (!s.interruptPending) {
      s.interruptPending = true;
      if (!(await m.signalChild(turnInterruptSignal))) return { pending: false, turn_id: turn };
      await m.publishState();
    }
    return { pending: true, turn_id: turn };
  }
  if (!wf.patched(TURN_COMMAND_INTENTS)) return { pending: false, turn_id: null };
  s.intents.interrupt(turn);
  if (turn === s.activeTurn && !s.interruptPending) {
    s.interruptPending = true;
    await m.publishState();
  }
  return { pending: true, turn_id: turn };
}

/** `delivered: true` once the turn has it or will take it at its start; false (with its id) when it had ended. */
export async function steerTurn(m: SessionManager, cmd: SteerCommand): Promise<{ delivered: boolean; turn_id: string | null }> {
  const s = m.state;
  const turn = s.commandTarget(cmd.turn_id);
  if (!turn) return { delivered: false, turn_id: null };
  if (turn === s.activeTurn && m.child) return { delivered: await m.signalChild(turnSteerSignal, { text: cmd.text }), turn_id: turn };
  if (!wf.patched(TURN_COMMAND_INTENTS)) return { delivered: false, turn_id: null };
  s.intents.steer(turn, cmd.text);
  return { delivered: true, turn_id: turn };
}

/** Gives up the running turn's provider retry; answered once the turn has ended (`cancelled: false` when it had already). */
export async function abortRetry(m: SessionManager): Promise<{ cancelled: boolean; turn_id: string | null }> {
  const turn = m.state.activeTurn;
  if (!turn || !m.child || m.state.phase !== 'retrying') return { cancelled: false, turn_id: null };
  if (!(await m.signalChild(turnAbortRetrySignal))) return { cancelled: false, turn_id: turn };
  await wf.condition(() => m.state.activeTurn !== turn);
  return { cancelled: true, turn_id: turn };
}

/** The turn's child has just started: what clients asked of it meanwhile reaches it now. */
export async function applyIntents(m: SessionManager, turn: string): Promise<void> {
  const intent = m.state.intents.take(turn);
  if (!intent) return;
  if (intent.abort) {
    await m.signalChild(turnAbortSignal);
    return;
  }
  for (const text of intent.steering) await m.signalChild(turnSteerSignal, { text });
  if (intent.interrupt) await m.signalChild(turnInterruptSignal);
}

/**
 * Queued turns dropped before they ran (an abort, clear_queue): each announced as ended `aborted`,
 * so whoever waits for its end hears it; then the state with the queue as it is now.
 */
export async function announceDropped(m: SessionManager, turns: string[]): Promise<void> {
  await m.events.publish(turns.map((turn) => ({ turn_id: turn, event: { type: 'turn.finished' as const, turn_id: turn, outcome: 'aborted' as const, steps: 0 } })));
  await m.publishState();
}
