import { requiresApproval, toolCallHandling } from './approval-policy';
import { approvalPolicySchema } from './session-settings';
import { TOOL_DEFINITIONS } from './tools';

const policy = (p: object) => approvalPolicySchema.parse(p);
const tool = (name: string) => ({ name, readOnly: TOOL_DEFINITIONS.find((d) => d.name === name)?.readOnly ?? false });

test('plan mode refuses every tool that is not read-only, even one answered "always", and lets reads run as the policy says', () => {
  const planned = policy({ plan_mode: true, always_allow: ['write_file'] });
  for (const name of ['write_file', 'edit_file', 'delete_file', 'shell_exec', 'some_unknown_tool']) {
    expect(toolCallHandling(planned, tool(name))).toBe('refuse');
    expect(requiresApproval(planned, tool(name))).toBe(false);
  }
  for (const name of ['read_file', 'list_files', 'search_files', 'git_status', 'git_diff']) expect(toolCallHandling(planned, tool(name))).toBe('run');
  // Reads still follow the policy: with auto-approval off they ask.
  expect(toolCallHandling(policy({ plan_mode: true, auto_approve_readonly: false }), tool('read_file'))).toBe('ask');
});

test('without plan mode nothing is refused: writes ask unless always allowed, reads run', () => {
  expect(policy({}).plan_mode).toBe(false);
  expect(toolCallHandling(policy({}), tool('write_file'))).toBe('ask');
  expect(toolCallHandling(policy({ always_allow: ['write_file'] }), tool('write_file'))).toBe('run');
  expect(toolCallHandling(policy({}), tool('read_file'))).toBe('run');
  // A policy recorded before plan mode existed has no such field: off.
  const { plan_mode: _gone, ...older } = policy({});
  expect(toolCallHandling(older as never, tool('shell_exec'))).toBe('ask');
});
