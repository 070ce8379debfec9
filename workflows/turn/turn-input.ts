import type * as TurnContract from '../../contracts/turn-workflow';
import type { TurnWorkflowInput, turnWorkflowInputSchema } from '../../contracts/turn-workflow';
import { TURN_INPUT_DEFAULTS } from '../../contracts/turn-protocol';

/** The turn's input as its schema's parse returns it: every default filled in. */
export type TurnInput = ReturnType<(typeof turnWorkflowInputSchema)['parse']>;

const isInt = (v: unknown): v is number => Number.isInteger(v);
const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Whether `raw` has the shape the turn reads, with the settings complete: what a session, a job or a
 * turn continuing as new hands a turn today (their settings were parsed when they were set). Types
 * only, no enum or range checks: these inputs were built by strand's own workflows.
 */
function isComplete(raw: TurnWorkflowInput): boolean {
  const r = raw as unknown as Record<string, unknown>;
  const s = r.settings;
  if (typeof r.session_id !== 'string' || typeof r.project_path !== 'string' || typeof r.text !== 'string' || !isInt(r.turn_number)) return false;
  if (!isObject(r.record) || !isInt(r.record.last_turn) || !Array.isArray(r.record.requests)) return false;
  if (!isObject(s) || typeof s.model !== 'string' || typeof s.thinking_level !== 'string' || typeof s.auto_retry !== 'boolean' || typeof s.auto_compaction !== 'boolean') return false;
  const a = s.approval;
  if (!isObject(a) || typeof a.auto_approve_readonly !== 'boolean' || !Array.isArray(a.always_allow) || !isInt(a.timeout_s) || typeof a.default_decision !== 'string' || typeof a.plan_mode !== 'boolean') return false;
  // Optional fields and those with defaults: absent is fine (defaults filled below), present must have the right type.
  const optional: Array<[unknown, (v: unknown) => boolean]> = [
    [r.max_steps, isInt],
    [r.first_step, isInt],
    [r.steering, Array.isArray],
    [r.progress_acks, isBoolean],
    [r.publishes_state, isBoolean],
    [r.announces_start, isBoolean],
    [r.local_activities_in_order, isBoolean],
    [r.reports_by_activity, isBoolean],
    [r.view_in_memo, isBoolean],
    [r.interrupted, isBoolean],
    [r.thinking_before_next_step, isBoolean],
    [r.images, Array.isArray],
    [r.session_part, isObject],
    [r.subagent, isObject],
    [r.budget, isObject],
    [s.name, (v) => typeof v === 'string'],
    [s.budget, isObject],
  ];
  return optional.every(([v, ok]) => v === undefined || ok(v));
}

/**
 * The turn's input with its defaults, without zod on the common path. Every prompt starts a turn run,
 * and a run evaluates the modules it imports afresh: the input's schema (and the settings', the
 * state's and the sub-agents' it is built from) cost about as much as the rest of the run's first
 * task, and its full parse more again (bench:temporal-floor). An input of the shape strand's
 * workflows build gets the defaults added here; anything else (a turn of an older session's history
 * with settings from before a default, a malformed input) is parsed by the schema, required only then,
 * as before. Both give the same value for the same input (turn-input.test.ts); neither emits commands.
 */
export function readTurnInput(raw: TurnWorkflowInput): TurnInput {
  if (!isComplete(raw)) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- evaluated only for the inputs that need it (above)
    const { turnWorkflowInputSchema: schema } = require('../../contracts/turn-workflow') as typeof TurnContract;
    return schema.parse(raw);
  }
  const d = TURN_INPUT_DEFAULTS;
  return {
    ...(raw as TurnInput),
    max_steps: raw.max_steps ?? d.max_steps,
    first_step: raw.first_step ?? d.first_step,
    steering: raw.steering ?? [...d.steering],
    progress_acks: raw.progress_acks ?? d.progress_acks,
    publishes_state: raw.publishes_state ?? d.publishes_state,
  };
}
