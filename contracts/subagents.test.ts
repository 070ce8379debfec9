import { approvalPolicySchema } from './session-settings';
import { toolCallHandling } from './approval-policy';
import {
  DEFAULT_SUBAGENT_MAX_STEPS,
  SUBAGENT_TOOLS,
  parseSubagentSessionId,
  subagentMaxStepsFromEnv,
  subagentPolicy,
  subagentRefusal,
  subagentSessionId,
  subagentUsageOf,
  taskParamsSchema,
} from './subagents';
import { TOOL_DEFINITIONS, toolDefinition, toolsForModel } from './tools';
import { subagentWorkflowId, turnWorkflowId } from './workflow-ids';

describe('the task tool', () => {
  test('takes a description and a prompt, both required, nothing else', () => {
    expect(taskParamsSchema.parse({ description: 'find the parser', prompt: 'Where is the EDN parser? Report paths.' })).toEqual({ description: 'find the parser', prompt: 'Where is the EDN parser? Report paths.' });
    expect(taskParamsSchema.safeParse({ prompt: 'x' }).success).toBe(false);
    expect(taskParamsSchema.safeParse({ description: 'x', prompt: '' }).success).toBe(false);
    expect(taskParamsSchema.safeParse({ description: 'x', prompt: 'y', tools: ['shell_exec'] }).success).toBe(false);
    const offered = toolsForModel().find((t) => t.name === 'task')!;
    expect(offered.input_schema).toMatchObject({ type: 'object', required: ['description', 'prompt'] });
    // It only reads (its sub-agent does), so the default policy runs it without asking.
    expect(toolDefinition('task')?.readOnly).toBe(true);
  });

  test('a sub-agent gets the read-only built-in tools only: no writes, no shell, no task', () => {
    const readOnly = TOOL_DEFINITIONS.filter((d) => d.readOnly && d.name !== 'task').map((d) => d.name);
    expect([...SUBAGENT_TOOLS].sort()).toEqual(readOnly.sort());
    expect(SUBAGENT_TOOLS).not.toContain('task');
    expect(subagentRefusal('write_file')).toMatch(/^This write_file call was not run: a sub-agent may only use read_file, /);
  });

  test('its policy runs its own tools without asking, whatever the parent asks for, and is never plan mode', () => {
    const strict = approvalPolicySchema.parse({ auto_approve_readonly: false, plan_mode: true });
    const policy = subagentPolicy(strict, SUBAGENT_TOOLS);
    for (const name of SUBAGENT_TOOLS) expect(toolCallHandling(policy, { name, readOnly: true })).toBe('run');
    expect(toolCallHandling(policy, { name: 'shell_exec', readOnly: false })).toBe('ask');
    expect(policy.plan_mode).toBe(false);
    expect(strict.always_allow).toEqual([]);
  });

  test('the step limit comes from STRAND_SUBAGENT_MAX_STEPS, else 20', () => {
    expect(DEFAULT_SUBAGENT_MAX_STEPS).toBe(20);
    expect(subagentMaxStepsFromEnv({})).toBe(20);
    expect(subagentMaxStepsFromEnv({ STRAND_SUBAGENT_MAX_STEPS: ' 5 ' })).toBe(5);
    for (const bad of ['0', '-3', '2.5', 'many', '']) expect(subagentMaxStepsFromEnv({ STRAND_SUBAGENT_MAX_STEPS: bad })).toBe(20);
  });
});

describe('ids', () => {
  test('the child workflow id derives from the parent turn and the call: the same on every replay', () => {
    const parent = turnWorkflowId('s1', 3);
    expect(subagentWorkflowId(parent, 'toolu_01')).toBe('session:s1:turn:3:task:toolu_01');
    expect(subagentWorkflowId(parent, 'toolu_01')).toBe(subagentWorkflowId(parent, 'toolu_01'));
    expect(subagentWorkflowId(parent, 'toolu_02')).not.toBe(subagentWorkflowId(parent, 'toolu_01'));
  });

  test('a sub-session id names its parent session, turn and call, and reads back', () => {
    const id = subagentSessionId('9f1c-session', 't4', 'call_ab12_1');
    expect(id).toBe('9f1c-session~task~t4~call_ab12_1');
    expect(parseSubagentSessionId(id)).toEqual({ parent_session_id: '9f1c-session', parent_turn_id: 't4', tool_call_id: 'call_ab12_1' });
    // A client's own names may hold the separator's pieces; only the whole pattern is a sub-session.
    expect(parseSubagentSessionId(subagentSessionId('alice~task~notes', 't1', 'c~1'))).toEqual({ parent_session_id: 'alice~task~notes', parent_turn_id: 't1', tool_call_id: 'c~1' });
    for (const other of ['9f1c-session', 'x~task~', '~task~t1~c', 'a~task~t0~c', 'a~task~turn~c', 'a~task~t2']) expect(parseSubagentSessionId(other)).toBeUndefined();
  });
});

test("a task call's stored result carries its sub-agent's spend; nothing else does", () => {
  const usage = { input: 120, output: 30, cache_read: 0, cache_write: 0, cost_usd: 0.002 };
  const details = { subagent: { session_id: 's~task~t1~c', outcome: 'done', steps: 2, usage } };
  expect(subagentUsageOf({ role: 'function_result', function_id: 'task', details })).toEqual(usage);
  expect(subagentUsageOf({ role: 'function_result', function_id: 'read_file', details })).toBeUndefined();
  expect(subagentUsageOf({ role: 'function_result', function_id: 'task', details: { aborted: true } })).toBeUndefined();
  expect(subagentUsageOf({ role: 'assistant' })).toBeUndefined();
  expect(subagentUsageOf(undefined)).toBeUndefined();
});
