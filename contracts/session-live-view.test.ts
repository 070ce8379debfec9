import { withTurnView, type SessionLiveView, type TurnLiveView } from './session-live-view';

const session = (over: Partial<SessionLiveView> = {}): SessionLiveView => ({
  session_id: 's1',
  project_path: '/p',
  phase: 'thinking',
  settings: null,
  active_turn: 't2',
  step: 0,
  streaming: true,
  retry_attempt: 0,
  last_turn: 1,
  queue: [],
  pending_approvals: [],
  interrupt_pending: false,
  turn_start_seq: 7,
  turn_keeps_view: true,
  ...over,
});
const tool: TurnLiveView = { phase: 'tool_execution', step: 1, streaming: false, retry_attempt: 0, details: 'read_file a.txt' };

describe('withTurnView', () => {
  test("puts the running turn's phase, step, streaming flag and details over the session's", () => {
    expect(withTurnView(session(), tool)).toEqual(session({ phase: 'tool_execution', step: 1, streaming: false, details: 'read_file a.txt' }));
  });

  test("drops the session's details when the turn has none", () => {
    expect(withTurnView(session({ phase: 'thinking', details: 'old' }), { phase: 'thinking', step: 2, streaming: true, retry_attempt: 0 })).toEqual(session({ step: 2 }));
  });

  test('leaves the phases the session acts on to the session (an approval, a retry, a budget wait)', () => {
    for (const phase of ['waiting_approval', 'retrying', 'waiting_budget'] as const) {
      const view = session({ phase, pending_approvals: phase === 'waiting_approval' ? [{ tool_call_id: 'c1', tool: 'write_file' }] : [] });
      expect(withTurnView(view, tool)).toBe(view);
    }
  });

  test('changes nothing without a turn view, without a running turn, or for a turn that reports everything', () => {
    expect(withTurnView(session(), undefined)).toEqual(session());
    const idle = session({ phase: 'idle', active_turn: null, step: null, streaming: false, turn_keeps_view: undefined });
    expect(withTurnView(idle, tool)).toBe(idle);
    const older = session({ turn_keeps_view: undefined });
    expect(withTurnView(older, tool)).toBe(older);
  });
});
