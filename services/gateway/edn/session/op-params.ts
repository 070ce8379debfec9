import { z } from 'zod';
import { strictRequest } from '../../../../contracts/strict-request';
import type { EdnMap } from '../edn-value';
import { anyValue as opt, checkParams } from '../strict-params';

/**
 * Every EDN op's params, declared once (docs/edn.md, "Params"): which keys each op takes, strict at
 * every depth, so a misspelt key (`:sesion-id`, `:mesage`) is `request/invalid-params` naming it
 * rather than ignored. The values' types are checked by the op itself (params.ts), which names the
 * param and what it should be; here only the keys are declared.
 *
 * `:session-id` is taken by every op: the protocol's rule is that an op naming a session acts on it,
 * and psi's clients may name their session on any request. Three values are opaque by design: a
 * picker's `:value` and `:ui/action` (the client echoes what the server sent in
 * `ui/frontend-action-requested`) and a dialog's `:result` (true, a string or nil).
 */

/** An op's params: its own keys and `:session-id`. */
const params = (keys: Record<string, z.ZodType> = {}) => z.object({ 'session-id': opt, ...keys });

const message = { message: opt, images: opt };
const dialog = { 'dialog-id': opt };

export const EDN_OP_PARAMS = {
  ping: params(),
  query_eql: params({ query: opt }),
  command: params({ text: opt }),
  frontend_action_result: params({ 'request-id': opt, 'action-name': opt, status: opt, value: opt, 'error-message': opt, 'ui/action': opt }),
  prompt: params(message),
  prompt_while_streaming: params({ ...message, behavior: opt }),
  steer: params(message),
  follow_up: params(message),
  abort: params(),
  interrupt: params(),
  abort_retry: params(),
  compact: params({ 'custom-instructions': opt }),
  login_begin: params({ provider: opt }),
  login_complete: params({ input: opt }),
  new_session: params({ 'parent-session': opt }),
  switch_session: params({ 'session-path': opt }),
  fork: params({ 'entry-id': opt }),
  list_sessions: params(),
  set_session_name: params({ name: opt }),
  set_model: params({ provider: opt, 'model-id': opt }),
  cycle_model: params({ direction: opt }),
  set_thinking_level: params({ level: opt }),
  cycle_thinking_level: params(),
  set_auto_compaction: params({ enabled: opt }),
  set_auto_retry: params({ enabled: opt }),
  get_state: params(),
  get_messages: params(),
  get_session_stats: params(),
  get_fork_messages: params(),
  get_last_assistant_text: params(),
  get_commands: params(),
  get_available_models: params(),
  export_html: params(),
  subscribe: params({ topics: opt, since: opt }),
  unsubscribe: params({ topics: opt }),
  resolve_dialog: params({ ...dialog, result: opt }),
  cancel_dialog: params(dialog),
  bash: params({ command: opt, timeout: opt }),
  abort_bash: params(),
  list_jobs: params({ status: opt, limit: opt }),
  get_job: params({ 'job-id': opt }),
  get_job_report: params({ 'job-id': opt, format: opt }),
  watch_job: params({ 'job-id': opt }),
  cancel_job: params({ 'job-id': opt }),
  answer_job_escalation: params({ 'job-id': opt, 'tool-call-id': opt, decision: opt, reason: opt }),
} as const satisfies Record<string, z.ZodType>;

const strict = new Map<string, z.ZodType>(Object.entries(EDN_OP_PARAMS).map(([op, schema]) => [op, strictRequest(schema)]));

/** The op's params checked against its declaration (an unknown op is refused before, as request/op-not-supported). */
export function checkOpParams(op: string, params: EdnMap): void {
  const schema = strict.get(op);
  if (schema) checkParams(schema, op, params);
}
