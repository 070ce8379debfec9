import type { ApplicationFailure } from '@temporalio/workflow';
import { sessionSettingsSchema } from '../../contracts/session-settings';
import { SessionState } from './session-state';
import { summaryOf } from './summary';

const record = (last_turn = 0) => ({ project_path: '/p', settings: sessionSettingsSchema.parse({ model: 'scripted/echo' }), last_turn, requests: [] });
const typeOf = (fn: () => void) => {
  try {
    fn();
  } catch (e) {
    return (e as ApplicationFailure).type;
  }
  return undefined;
};

describe('SessionState', () => {
  test('an accepted prompt makes the session busy at once; a second is SESSION_BUSY until the turn finishes', () => {
    const state = new SessionState('s', { record: record(4), queue: [] });
    expect(typeOf(() => state.validatePrompt({ text: 'a' }))).toBeUndefined();
    expect(state.accept({ text: 'a' })).toMatchObject({ turn_id: 't5', queued: false, duplicate: false, agent_state: 'thinking' });
    expect(typeOf(() => state.validatePrompt({ text: 'b' }))).toBe('SESSION_BUSY');
    state.startNext();
    expect(typeOf(() => state.validatePrompt({ text: 'b' }))).toBe('SESSION_BUSY');
    state.finishTurn();
    expect(state.phase).toBe('idle');
    expect(typeOf(() => state.validatePrompt({ text: 'c' }))).toBeUndefined();
  });

  test('queued prompts run in order, keep their turn numbers, and can be cleared', () => {
    const state = new SessionState('s', { record: record(), queue: [] });
    state.accept({ text: 'a' });
    state.startNext();
    expect(state.accept({ text: 'b', behavior: 'queue' })).toMatchObject({ turn_id: 't2', queued: true, queue_position: 1 });
    expect(state.accept({ text: 'c', behavior: 'queue' })).toMatchObject({ turn_id: 't3', queued: true, queue_position: 2 });
    state.finishTurn();
    expect(state.phase).toBe('thinking');
    expect(state.startNext()?.text).toBe('b');
    expect(state.clearQueue()).toEqual(['t3']);
    state.finishTurn();
    expect(state.phase).toBe('idle');
    expect(state.accept({ text: 'd' }).turn_id).toBe('t4');
  });

  test('a seen request id answers its turn and starts nothing, even while busy', () => {
    const state = new SessionState('s', { record: record(), queue: [] });
    state.accept({ text: 'a', request_id: 'r1' });
    state.startNext();
    expect(typeOf(() => state.validatePrompt({ text: 'a', request_id: 'r1' }))).toBeUndefined();
    expect(state.accept({ text: 'a', request_id: 'r1' })).toMatchObject({ turn_id: 't1', duplicate: true });
    expect(state.queue).toHaveLength(0);
    expect(state.record?.requests).toEqual([{ request_id: 'r1', turn_id: 't1', turn_number: 1 }]);
  });

  test('a fresh run claims the session for prompts that arrive before its record is loaded', () => {
    const state = new SessionState('s');
    expect(state.loaded).toBe(false);
    state.claimUnloaded();
    expect(typeOf(() => state.validatePrompt({ text: 'b' }))).toBe('SESSION_BUSY');
    state.record = record(2);
    state.releaseUnloaded();
    expect(state.accept({ text: 'a' }).turn_id).toBe('t3');
  });

  test('the phase follows the named transitions: work keeps its phase through clear_queue; idle only when nothing runs or waits', () => {
    const state = new SessionState('s', { record: record(), queue: [] });
    state.beginWork('compaction');
    expect(state.phase).toBe('compacting');
    state.accept({ text: 'later', behavior: 'queue' });
    expect(state.clearQueue()).toEqual(['t1']);
    expect(state.phase).toBe('compacting');
    state.endWork();
    expect(state.phase).toBe('idle');
    state.beginWork('revert');
    expect(state.phase).toBe('tool_execution');
    expect(typeOf(() => state.validatePrompt({ text: 'x' }))).toBe('SESSION_BUSY');
    state.endWork();
    state.accept({ text: 'a' });
    expect(state.phase).toBe('thinking');
    state.startNext();
    state.applyProgress({ turn_id: 't2', phase: 'tool_execution', step: 0 });
    expect(state.phase).toBe('tool_execution');
    state.finishTurn('done');
    expect(state.phase).toBe('idle');
  });

  test('a turn command means the named turn, else the running one, else the next queued one; a dropped turn ends aborted', () => {
    const state = new SessionState('s', { record: record(), queue: [] });
    expect(state.commandTarget(undefined)).toBeNull();
    expect(typeOf(() => state.validateTurnCommand('abort', {}))).toBe('NOTHING_RUNNING');
    state.accept({ text: 'a' });
    state.accept({ text: 'b', behavior: 'queue' });
    expect(state.commandTarget(undefined)).toBe('t1');
    state.startNext();
    expect(state.commandTarget(undefined)).toBe('t1');
    expect(state.commandTarget('t2')).toBe('t2');
    expect(state.commandTarget('t9')).toBeNull();
    expect(typeOf(() => state.validateTurnCommand('abort', { turn_id: 't9' }))).toBe('NOTHING_RUNNING');
    expect(state.dropQueued('t2')).toBe(true);
    expect(state.intents.outcomeOf('t2')).toBe('aborted');
    state.intents.interrupt('t3');
    state.accept({ text: 'c', behavior: 'queue' });
    state.finishTurn('done');
    expect(state.intents.outcomeOf('t1')).toBe('done');
    state.startNext();
    // An interrupt sent while t3 waited applies from its start.
    expect(state.interruptPending).toBe(true);
  });

  test('invalid prompts are rejected by the validator', () => {
    const state = new SessionState('s', { record: record(), queue: [] });
    expect(typeOf(() => state.validatePrompt({ text: '' }))).toBe('INVALID_COMMAND');
  });

  test('summaries are the first line, bounded', () => {
    expect(summaryOf('Fix the bug\nin detail')).toBe('Fix the bug');
    expect(summaryOf('x'.repeat(500)).length).toBe(200);
  });
});
