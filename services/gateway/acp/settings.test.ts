import { approvalPolicySchema } from '../../../contracts/session-settings';
import { schemaErrors } from '../../../test/harness/acp-schema';
import { configOptions, modeOf, modeState, policyOf } from './settings';

const policy = (p: object) => approvalPolicySchema.parse(p);

test('each mode sets a policy that reads back as that mode; "always" answers for every changing tool amount to auto', () => {
  for (const mode of ['ask', 'ask-all', 'auto', 'plan'] as const) expect(modeOf(policy(policyOf(mode)))).toBe(mode);
  expect(modeOf(policy({ always_allow: ['write_file'] }))).toBe('ask');
  expect(modeOf(policy({ always_allow: ['write_file', 'edit_file', 'delete_file', 'shell_exec'] }))).toBe('auto');
  expect(schemaErrors('SessionModeState', modeState(policy({})))).toBe('');
});

test('the model picker lists the current model even when no configured provider offers it', () => {
  const options = configOptions([{ ref: 'scripted/echo', name: 'scripted/echo' }], { model: 'anthropic/x', thinking_level: 'low' });
  expect(options[0]).toMatchObject({ id: 'model', category: 'model', currentValue: 'anthropic/x', options: [{ value: 'anthropic/x' }, { value: 'scripted/echo' }] });
  expect(options[1]).toMatchObject({ id: 'thinking', category: 'thought_level', currentValue: 'low' });
  for (const o of options) expect(schemaErrors('SessionConfigOption', o)).toBe('');
});

test('plan mode shows as the mode `plan` whatever else the policy says; choosing another mode turns it off', () => {
  const auto = { ...policy({}), ...policyOf('auto') };
  const planned = policy({ ...auto, ...policyOf('plan') });
  expect(modeOf(planned)).toBe('plan');
  // Back to auto: the always-allow list set by `auto` is still there, and plan mode is off.
  expect(modeOf(policy({ ...planned, ...policyOf('auto') }))).toBe('auto');
  expect(modeOf(policy({ ...planned, ...policyOf('ask') }))).toBe('ask');
  expect(policy({ ...planned, ...policyOf('ask-all') }).plan_mode).toBe(false);
  expect(modeState(planned).availableModes.map((m) => m.id)).toEqual(['ask', 'ask-all', 'auto', 'plan']);
});
