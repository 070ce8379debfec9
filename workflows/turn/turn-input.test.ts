import { approvalPolicySchema, sessionSettingsSchema } from '../../contracts/session-settings';
import { turnWorkflowInputSchema, type TurnWorkflowInput } from '../../contracts/turn-workflow';
import { readTurnInput } from './turn-input';

/**
 * The turn reads its input without zod when strand's own workflows built it, and with the schema
 * otherwise: the value must be the schema's either way (the turn's commands depend on it, and a
 * replayed history must see the same).
 */
const settings = sessionSettingsSchema.parse({ model: 'scripted/echo' });

/** What a session hands a new turn (workflows/session/session-turns.ts): no top-level defaults, its parsed settings. */
const fromSession: TurnWorkflowInput = {
  session_id: 's1',
  project_path: '/p',
  turn_number: 3,
  text: 'hi',
  settings,
  record: { last_turn: 2, requests: [{ request_id: 'r1', turn_id: 't2', turn_number: 2 }] },
  progress_acks: true,
  thinking_before_next_step: true,
  publishes_state: true,
  session_part: { model: 'scripted/echo', thinking_level: 'off', queue_length: 0 },
};

const variants: Array<[string, TurnWorkflowInput]> = [
  ['a session\'s new turn', fromSession],
  ['a turn continued as new', { ...turnWorkflowInputSchema.parse(fromSession), first_step: 40, steering: ['also this'], settings: { ...settings, budget: { max_tokens: 10 }, approval: { ...settings.approval, always_allow: ['shell_exec'] } } }],
  ['a job\'s turn', { session_id: 'j', project_path: '/w', turn_number: 1, text: 'do it', settings, max_steps: 200, record: { last_turn: 1, requests: [] }, thinking_before_next_step: true, budget: { max_cost_usd: 1 } }],
  ['a sub-agent', { ...fromSession, subagent: { parent_session_id: 'p', parent_turn_id: 't1', tool_call_id: 'c1', tools: ['read_file'] } }],
  ['with images', { ...fromSession, images: [{ ref: 'img-1', mime: 'image/png', bytes: 10 }] }],
];

describe('readTurnInput', () => {
  test.each(variants)('%s: the schema\'s value', (_name, input) => {
    expect(readTurnInput(input)).toEqual(turnWorkflowInputSchema.parse(input));
  });

  test('an input from before a settings default (an older history) is parsed by the schema, defaults filled', () => {
    const { approval: _a, thinking_level: _t, ...older } = settings;
    const input = { ...fromSession, settings: older } as unknown as TurnWorkflowInput;
    const read = readTurnInput(input);
    expect(read).toEqual(turnWorkflowInputSchema.parse(input));
    expect(read.settings.approval).toEqual(approvalPolicySchema.parse({}));
    expect(read.settings.thinking_level).toBe('off');
  });

  test('any field taken away or of the wrong type: the same value as the schema, or refused as the schema refuses it', () => {
    const full = turnWorkflowInputSchema.parse(fromSession) as unknown as Record<string, unknown>;
    const cases: Record<string, unknown>[] = [];
    for (const key of Object.keys(full)) {
      const { [key]: _gone, ...without } = full;
      cases.push(without, { ...full, [key]: 'wrong' });
    }
    for (const key of Object.keys(settings)) {
      const { [key]: _gone, ...without } = settings as Record<string, unknown>;
      cases.push({ ...full, settings: without }, { ...full, settings: { ...settings, [key]: 7 } });
    }
    for (const key of Object.keys(settings.approval)) {
      const { [key]: _gone, ...without } = settings.approval as Record<string, unknown>;
      cases.push({ ...full, settings: { ...settings, approval: without } }, { ...full, settings: { ...settings, approval: { ...settings.approval, [key]: null } } });
    }
    for (const c of cases) {
      const input = c as unknown as TurnWorkflowInput;
      const expected = turnWorkflowInputSchema.safeParse(input);
      if (expected.success) expect(readTurnInput(input)).toEqual(expected.data);
      else expect(() => readTurnInput(input)).toThrow();
    }
  });
});
