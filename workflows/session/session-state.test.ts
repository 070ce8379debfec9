import { ApplicationFailure } from '@temporalio/workflow';
import { summaryOf } from './summary';
import { SessionState } from './session-state';

const input = { session_id: 's', project_path: '/p', model: 'scripted/echo', thinking_level: 'off', idle_timeout_ms: 1000 };

describe('SessionState', () => {
  test('a claimed session rejects further prompts as SESSION_BUSY until released', () => {
    const state = new SessionState({ ...input, last_turn: 4 });
    expect(() => state.validatePrompt({ text: 'a' })).not.toThrow();
    state.claim();
    const err = (() => {
      try {
        state.validatePrompt({ text: 'b' });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect((err as ApplicationFailure).type).toBe('SESSION_BUSY');
    state.release();
    expect(() => state.validatePrompt({ text: 'c' })).not.toThrow();
  });

  test('empty prompts are invalid', () => {
    const state = new SessionState(input);
    expect(() => state.validatePrompt({ text: '' })).toThrow(/must not be empty/);
  });

  test('turn numbers continue from the stored counter and are never reused', () => {
    const state = new SessionState({ ...input, last_turn: 4 });
    expect(state.enqueue('x').number).toBe(5);
    expect(state.enqueue('y').number).toBe(6);
    expect(state.snapshot()).toMatchObject({ last_turn: 6, queue_length: 2 });
  });

  test('summaries are the first line, bounded', () => {
    expect(summaryOf('Fix the bug\nin detail')).toBe('Fix the bug');
    expect(summaryOf('x'.repeat(500)).length).toBe(200);
  });
});
