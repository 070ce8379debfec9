import { approvalPolicySchema } from '../../../contracts/session-settings';
import { schemaErrors } from '../../../test/harness/acp-schema';
import { configOptions, modeOf, modeState, policyOf } from './settings';

const policy = (p: object) => approvalPolicySchema.parse(p);

test('each mode sets a policy that reads back as that mode; "always" answers for every changing tool amount to auto', () => {
  for (const mode of ['ask', 'ask-all', 'auto'] as const) expect(modeOf(policy(policyOf(mode)))).toBe(mode);
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
