import { strictRequest } from '../../../../contracts/strict-request';
import { mapPaths, tolerantObjects, withKeyAt } from '../../../../test/harness/strict-walk';
import { kw, type EdnMap } from '../edn-value';
import { EdnErrorCode, EdnOpError } from '../protocol';
import { checkParams, HANDSHAKE_PARAMS } from '../strict-params';
import { EDN_OPS } from './index';
import { checkOpParams, EDN_OP_PARAMS } from './op-params';

/**
 * Every EDN op's params are strict at every depth (docs/edn.md, "Params"): each op has a declaration,
 * every object in it refuses keys it does not name, and an unknown key at every depth of a request a
 * real client sends is `request/invalid-params` naming it.
 */

/** One request per op as psi's Emacs client (or strand's docs) sends it, every param it takes filled. */
const EXAMPLES: Record<string, EdnMap> = {
  ping: {},
  query_eql: { query: '[:psi.agent-session/session-id]', 'session-id': 's1' },
  command: { text: '/status' },
  frontend_action_result: { 'request-id': 'r1', 'action-name': 'select-model', status: 'submitted', value: { provider: 'scripted', id: 'echo' }, 'ui/action': { 'ui/action-name': kw('select-model') }, 'error-message': null },
  prompt: { message: 'hi', images: [] },
  prompt_while_streaming: { message: 'hi', behavior: 'steer' },
  steer: { message: 'hi' },
  follow_up: { message: 'hi' },
  abort: {},
  interrupt: {},
  abort_retry: {},
  compact: { 'custom-instructions': 'keep the plan' },
  login_begin: { provider: 'anthropic' },
  login_complete: { input: 'code' },
  new_session: { 'parent-session': 's1' },
  switch_session: { 'session-id': 's1', 'session-path': 's1' },
  fork: { 'entry-id': 'e1' },
  list_sessions: {},
  set_session_name: { name: 'n' },
  set_model: { provider: kw('anthropic'), 'model-id': 'claude-sonnet-4-5' },
  cycle_model: { direction: 'next' },
  set_thinking_level: { level: kw('high') },
  cycle_thinking_level: {},
  set_auto_compaction: { enabled: true },
  set_auto_retry: { enabled: false },
  get_state: {},
  get_messages: {},
  get_session_stats: {},
  get_fork_messages: {},
  get_last_assistant_text: {},
  get_commands: {},
  get_available_models: {},
  export_html: {},
  subscribe: { topics: ['assistant/delta'], since: 3 },
  unsubscribe: { topics: ['assistant/delta'] },
  resolve_dialog: { 'dialog-id': 'call_1', result: true },
  cancel_dialog: { 'dialog-id': 'call_1' },
  bash: { command: 'ls', timeout: 10 },
  abort_bash: {},
  list_jobs: { status: 'running', limit: 5 },
  get_job: { 'job-id': 'j1' },
  get_job_report: { 'job-id': 'j1', format: 'markdown' },
  watch_job: { 'job-id': 'j1' },
  cancel_job: { 'job-id': 'j1' },
  answer_job_escalation: { 'job-id': 'j1', 'tool-call-id': 'call_1', decision: 'allow', reason: 'fine' },
};

/** Values the protocol declares opaque (docs/edn.md, "Params"): the client echoes what the server sent. */
const OPAQUE = ['frontend_action_result :value', 'frontend_action_result :ui/action'];

const refusal = (fn: () => void): EdnOpError => {
  try {
    fn();
  } catch (err) {
    if (err instanceof EdnOpError) return err;
    throw err;
  }
  throw new Error('accepted');
};

test('every op served has a params declaration, and every declaration an op', () => {
  expect(Object.keys(EDN_OP_PARAMS).sort()).toEqual(Object.keys(EDN_OPS).sort());
  expect(Object.keys(EXAMPLES).sort()).toEqual(Object.keys(EDN_OPS).sort());
});

test('every object of every op\'s params (and the handshake\'s) refuses keys it does not name, at every depth', () => {
  const tolerant = Object.entries(EDN_OP_PARAMS).flatMap(([op, schema]) => tolerantObjects(strictRequest(schema), op));
  expect([...tolerant, ...tolerantObjects(HANDSHAKE_PARAMS, 'handshake')]).toEqual([]);
});

test('an unknown key at every depth of every op\'s request is request/invalid-params naming it by its EDN path', () => {
  let checked = 0;
  for (const [op, example] of Object.entries(EXAMPLES)) {
    expect(() => checkOpParams(op, example)).not.toThrow();
    for (const path of mapPaths(example)) {
      const where = [op, ...path.map((k) => (typeof k === 'number' ? String(k) : `:${k}`))].join(' ');
      if (OPAQUE.some((o) => where.startsWith(o))) continue;
      const err = refusal(() => checkOpParams(op, withKeyAt(example, path, 'colour') as EdnMap));
      const named = [...path.map((k) => (typeof k === 'number' ? String(k) : `:${k}`)), ':colour'].join(' ');
      expect([where, err.code, err.message]).toEqual([where, EdnErrorCode.invalidParams, `invalid params for ${op}: ${named}: unrecognized key`]);
      checked++;
    }
  }
  expect(checked).toBeGreaterThanOrEqual(Object.keys(EXAMPLES).length);
});

test('the handshake: both forms psi clients send pass; an unknown key in the params or in :client-info is named', () => {
  const info = { name: 'psi-emacs', version: '0.1.0', 'protocol-version': '1.0', features: [], 'auth-token': 't' };
  expect(() => checkParams(HANDSHAKE_PARAMS, 'handshake', { 'client-info': info })).not.toThrow();
  expect(() => checkParams(HANDSHAKE_PARAMS, 'handshake', { 'protocol-version': '1.0' })).not.toThrow();
  expect(refusal(() => checkParams(HANDSHAKE_PARAMS, 'handshake', { 'client-info': { ...info, colour: 'red' } })).message).toBe('invalid params for handshake: :client-info :colour: unrecognized key');
  expect(refusal(() => checkParams(HANDSHAKE_PARAMS, 'handshake', { 'client-info': info, colour: 'red' })).message).toBe('invalid params for handshake: :colour: unrecognized key');
});
