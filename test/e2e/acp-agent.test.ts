import fs from 'node:fs';
import path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { commandsFor } from '../../contracts/slash-commands';
import { chunkText, SLOW_TEXT, useAcpStack } from '../harness/acp-fixture';

/**
 * `strand acp` end to end with the ACP SDK's own client over the process's stdio, against a real
 * stack: initialize, a session, streamed answers, tool calls with permission requests (allowed,
 * rejected), cancel, modes and config options, slash commands. Every frame the agent writes is
 * validated against the ACP schema (the fixture fails a test that saw a violation).
 */
const acpStack = useAcpStack('acp-agent');

const indexOf = (sent: any[], pred: (m: any) => boolean) => sent.findIndex(pred);

test('initialize says what strand takes; a new session streams its answer and ends the turn', async () => {
  const a = await acpStack.agent();
  const init = a.sent.find((m) => m.result?.protocolVersion !== undefined).result as acp.InitializeResponse;
  expect(init).toMatchObject({ protocolVersion: 1, agentCapabilities: { loadSession: true, promptCapabilities: { image: true, embeddedContext: true } }, authMethods: [] });

  const created = await acpStack.newSession(a);
  expect(created.modes).toMatchObject({ currentModeId: 'ask' });
  expect(created.modes!.availableModes.map((m) => m.id)).toEqual(['ask', 'ask-all', 'auto', 'plan']);
  const model = created.configOptions!.find((o) => o.id === 'model')!;
  expect(model).toMatchObject({ type: 'select', category: 'model', currentValue: 'scripted/echo' });
  const sid = created.sessionId;
  await a.until(() => a.updates(sid).some((u) => u.sessionUpdate === 'available_commands_update'), 10_000, 'the commands');
  const commands = a.updates(sid).find((u) => u.sessionUpdate === 'available_commands_update') as Extract<acp.SessionUpdate, { sessionUpdate: 'available_commands_update' }>;
  // The editor is offered the shared table's ACP entries (contracts/slash-commands.ts), nothing else.
  expect(commands.availableCommands.map((c) => c.name)).toEqual(commandsFor('acp').map((c) => c.name));
  expect(commands.availableCommands.map((c) => c.name)).toEqual(['model', 'thinking', 'compact', 'name', 'status', 'jobs', 'job', 'help']);
  // Nothing about the session reaches the client before its id does.
  expect(indexOf(a.sent, (m) => m.result?.sessionId === sid)).toBeLessThan(indexOf(a.sent, (m) => m.method === 'session/update'));

  const answer = await a.agent.request('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: 'hello ' }, { type: 'resource_link', uri: 'file:///tmp/x.txt', name: 'x.txt' }] });
  expect(answer).toEqual({ stopReason: 'end_turn' });
  expect(chunkText(a.updates(sid), 'agent_message_chunk')).toBe('You said: hello [@x.txt](file:///tmp/x.txt)');
  expect(a.updates(sid).some((u) => u.sessionUpdate === 'usage_update')).toBe(true);
  // The client shows its own prompt: it is not echoed back.
  expect(a.updates(sid).some((u) => u.sessionUpdate === 'user_message_chunk')).toBe(false);
  expect(a.stderr).toBe('');
});

test('an edit asks for permission after its tool_call; allowed, it runs and shows as a diff', async () => {
  fs.writeFileSync(path.join(acpStack.workspace, 'notes.txt'), 'hello world\n');
  const a = await acpStack.agent();
  const sid = (await acpStack.newSession(a, 'acp-edit')).sessionId;
  const asked: acp.RequestPermissionRequest[] = [];
  a.onPermission = async (req) => {
    asked.push(req);
    return { outcome: { outcome: 'selected', optionId: 'allow-once' } };
  };
  expect(await a.agent.request('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: 'edit the note' }] })).toEqual({ stopReason: 'end_turn' });
  expect(fs.readFileSync(path.join(acpStack.workspace, 'notes.txt'), 'utf8')).toBe('hello strand\n');

  expect(asked).toHaveLength(1);
  const call = asked[0]!.toolCall;
  expect(asked[0]!.options.map((o) => o.kind)).toEqual(['allow_once', 'allow_always', 'reject_once', 'reject_always']);
  const file = path.join(acpStack.workspace, 'notes.txt');
  expect(call).toMatchObject({ title: 'Edit notes.txt', kind: 'edit', status: 'pending', locations: [{ path: file }], rawInput: { path: 'notes.txt', old: 'world', new: 'strand' } });
  const updates = a.updates(sid);
  const toolUpdates = updates.filter((u) => (u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') && u.toolCallId === call.toolCallId);
  expect(toolUpdates.map((u) => [u.sessionUpdate, (u as acp.ToolCallUpdate).status])).toEqual([
    ['tool_call', 'pending'],
    ['tool_call_update', 'in_progress'],
    ['tool_call_update', 'completed'],
  ]);
  expect((toolUpdates[2] as acp.ToolCallUpdate).content).toEqual([{ type: 'diff', path: file, oldText: 'world', newText: 'strand' }]);
  // The call was announced before the question, and the question before it ran.
  const announced = indexOf(a.sent, (m) => m.params?.update?.sessionUpdate === 'tool_call');
  const question = indexOf(a.sent, (m) => m.method === 'session/request_permission');
  const running = indexOf(a.sent, (m) => m.params?.update?.status === 'in_progress');
  expect(announced).toBeLessThan(question);
  expect(question).toBeLessThan(running);
  expect(chunkText(updates, 'agent_thought_chunk')).toBe('The note says world.');
  expect(chunkText(updates, 'agent_message_chunk')).toMatch(/^I will edit the note\.Done: /);
});

test('a rejected call fails, the file stays, and the model reads the rejection', async () => {
  fs.writeFileSync(path.join(acpStack.workspace, 'keep.txt'), 'keep me\n');
  const a = await acpStack.agent();
  const sid = (await acpStack.newSession(a, 'acp-delete')).sessionId;
  a.onPermission = async () => ({ outcome: { outcome: 'selected', optionId: 'reject-once' } });
  expect(await a.agent.request('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: 'remove keep.txt' }] })).toEqual({ stopReason: 'end_turn' });
  expect(fs.existsSync(path.join(acpStack.workspace, 'keep.txt'))).toBe(true);
  const calls = a.updates(sid).filter((u) => u.sessionUpdate === 'tool_call_update');
  expect(calls[calls.length - 1]).toMatchObject({ status: 'failed' });
  expect(chunkText(a.updates(sid), 'agent_message_chunk')).toBe('Understood, I left it.');
  const stored = (await acpStack.get(`/api/sessions/${sid}/messages`)).messages;
  expect(stored[2].message).toMatchObject({ role: 'function_result', is_error: true });
});

test('cancel answers the prompt cancelled at once; nothing of the turn follows, and the partial answer is stored', async () => {
  const a = await acpStack.agent();
  const sid = (await acpStack.newSession(a, 'acp-slow')).sessionId;
  const answer = a.agent.request('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: 'talk slowly' }] });
  await a.until(() => chunkText(a.updates(sid), 'agent_message_chunk').length > 10, 30_000, 'the first words');
  await a.agent.notify('session/cancel', { sessionId: sid });
  expect(await answer).toEqual({ stopReason: 'cancelled' });
  const answeredAt = indexOf(a.sent, (m) => m.result?.stopReason === 'cancelled');
  await acpStack.idle(sid);
  // Another turn after it, so anything of the cancelled turn still on its way would have arrived.
  await a.agent.request('session/set_config_option', { sessionId: sid, configId: 'model', value: 'scripted/echo' });
  expect(await a.agent.request('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: 'next' }] })).toEqual({ stopReason: 'end_turn' });
  const after = a.sent.slice(answeredAt + 1).filter((m) => m.method === 'session/update').map((m) => m.params.update);
  expect(chunkText(after, 'agent_message_chunk')).toBe('You said: next');
  expect(after.filter((u: acp.SessionUpdate) => u.sessionUpdate !== 'agent_message_chunk' && u.sessionUpdate !== 'usage_update').map((u: acp.SessionUpdate) => u.sessionUpdate)).toEqual(['config_option_update']);
  const stored = (await acpStack.get(`/api/sessions/${sid}/messages`)).messages;
  expect(stored[1].message.stop_reason).toBe('aborted');
  expect(SLOW_TEXT.startsWith(stored[1].message.content[0].text)).toBe(true);
});

test('modes set the approval policy: auto runs an edit without asking; config options pick the model', async () => {
  fs.writeFileSync(path.join(acpStack.workspace, 'notes.txt'), 'hello world\n');
  const a = await acpStack.agent();
  const sid = (await acpStack.newSession(a)).sessionId;
  const options = await a.agent.request('session/set_config_option', { sessionId: sid, configId: 'model', value: 'scripted/acp-edit' });
  expect(options.configOptions.find((o) => o.id === 'model')).toMatchObject({ currentValue: 'scripted/acp-edit' });
  await expect(a.agent.request('session/set_config_option', { sessionId: sid, configId: 'thinking', value: 'loud' })).rejects.toMatchObject({ code: -32602 });
  await a.agent.request('session/set_mode', { sessionId: sid, modeId: 'auto' });
  let asked = 0;
  a.onPermission = async () => {
    asked += 1;
    return { outcome: { outcome: 'cancelled' } };
  };
  expect(await a.agent.request('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: 'edit the note' }] })).toEqual({ stopReason: 'end_turn' });
  expect(asked).toBe(0);
  expect(fs.readFileSync(path.join(acpStack.workspace, 'notes.txt'), 'utf8')).toBe('hello strand\n');
  await expect(a.agent.request('session/set_mode', { sessionId: sid, modeId: 'yolo' })).rejects.toMatchObject({ code: -32602 });
  // A reload shows the mode the session has.
  const b = await acpStack.agent();
  expect((await b.agent.request('session/load', { sessionId: sid, cwd: acpStack.workspace, mcpServers: [] })).modes).toMatchObject({ currentModeId: 'auto' });
});

test('mode plan refuses the edit without asking; the model reads the refusal; another mode turns plan mode off', async () => {
  fs.writeFileSync(path.join(acpStack.workspace, 'notes.txt'), 'hello world\n');
  const a = await acpStack.agent();
  const sid = (await acpStack.newSession(a, 'acp-edit')).sessionId;
  await a.agent.request('session/set_mode', { sessionId: sid, modeId: 'plan' });
  let asked = 0;
  a.onPermission = async () => {
    asked += 1;
    return { outcome: { outcome: 'selected', optionId: 'allow-once' } };
  };
  expect(await a.agent.request('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: 'edit the note' }] })).toEqual({ stopReason: 'end_turn' });
  expect(asked).toBe(0);
  expect(fs.readFileSync(path.join(acpStack.workspace, 'notes.txt'), 'utf8')).toBe('hello world\n');
  expect(chunkText(a.updates(sid), 'agent_message_chunk')).toBe('I will edit the note.Done: Plan mode is on: this edit_file call was not run.');
  const stored = (await acpStack.get(`/api/sessions/${sid}/messages`)).messages;
  expect(stored[2].message).toMatchObject({ role: 'function_result', is_error: false, details: { plan_mode: true } });
  expect((await acpStack.get(`/api/sessions/${sid}/settings`)).approval.plan_mode).toBe(true);
  const b = await acpStack.agent();
  expect((await b.agent.request('session/load', { sessionId: sid, cwd: acpStack.workspace, mcpServers: [] })).modes).toMatchObject({ currentModeId: 'plan' });
  // Choosing auto turns plan mode off: the same request edits the file.
  await a.agent.request('session/set_mode', { sessionId: sid, modeId: 'auto' });
  expect(await a.agent.request('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: 'now do it' }] })).toEqual({ stopReason: 'end_turn' });
  expect(fs.readFileSync(path.join(acpStack.workspace, 'notes.txt'), 'utf8')).toBe('hello strand\n');
  expect(asked).toBe(0);
});

test('a slash command answers as the agent without a turn; a command output shows in its tool row', async () => {
  const a = await acpStack.agent();
  const sid = (await acpStack.newSession(a, 'acp-shell')).sessionId;
  expect(await a.agent.request('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: '/thinking' }] })).toEqual({ stopReason: 'end_turn' });
  expect(chunkText(a.updates(sid), 'agent_message_chunk')).toMatch(/^Thinking level: off/);
  await a.agent.request('session/set_mode', { sessionId: sid, modeId: 'auto' });
  expect(await a.agent.request('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: 'run it' }] })).toEqual({ stopReason: 'end_turn' });
  const shell = a.updates(sid).filter((u) => u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update');
  expect(shell[0]).toMatchObject({ sessionUpdate: 'tool_call', kind: 'execute', title: 'Run echo from-the-shell' });
  expect(JSON.stringify(shell[shell.length - 1])).toContain('from-the-shell');
  expect(shell[shell.length - 1]).toMatchObject({ status: 'completed' });
  const stored = await acpStack.get(`/api/sessions/${sid}/messages`);
  expect(stored.messages.map((m: any) => m.message.role)).toEqual(['user', 'assistant', 'function_result', 'assistant']);
});

test('with tokens configured the agent names STRAND_TOKEN as its auth method, refuses without it, and sessions are its principal\'s', async () => {
  const tokens = { STRAND_TOKENS: 'tok-alice:alice,tok-bob:bob' };
  const none = await acpStack.agent(tokens);
  const init = none.sent.find((m) => m.result?.protocolVersion !== undefined).result as acp.InitializeResponse;
  expect(init.authMethods).toEqual([expect.objectContaining({ id: 'strand-token', name: 'STRAND_TOKEN' })]);
  await expect(acpStack.newSession(none)).rejects.toMatchObject({ code: -32000 });
  await expect(none.agent.request('authenticate', { methodId: 'strand-token' })).rejects.toMatchObject({ code: -32000 });

  const alice = await acpStack.agent({ ...tokens, STRAND_TOKEN: 'tok-alice' });
  expect(await alice.agent.request('authenticate', { methodId: 'strand-token' })).toEqual({});
  const sid = (await acpStack.newSession(alice)).sessionId;
  expect(await alice.agent.request('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: 'mine' }] })).toEqual({ stopReason: 'end_turn' });
  expect((await acpStack.get(`/api/sessions/${sid}`)).session_id).toBe(sid);
  // Another principal's session answers as an unknown one.
  const bob = await acpStack.agent({ ...tokens, STRAND_TOKEN: 'tok-bob' });
  await expect(bob.agent.request('session/load', { sessionId: sid, cwd: acpStack.workspace, mcpServers: [] })).rejects.toMatchObject({ code: -32002 });
  expect((await alice.agent.request('session/load', { sessionId: sid, cwd: acpStack.workspace, mcpServers: [] })).modes).toBeDefined();
});
