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

  test('invalid prompts are rejected by the validator', () => {
    const state = new SessionState('s', { record: record(), queue: [] });
    expect(typeOf(() => state.validatePrompt({ text: '' }))).toBe('INVALID_COMMAND');
  });

  test('summaries are the first line, bounded', () => {
    expect(summaryOf('Fix the bug\nin detail')).toBe('Fix the bug');
    expect(summaryOf('x'.repeat(500)).length).toBe(200);
  });
});
