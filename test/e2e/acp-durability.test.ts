import fs from 'node:fs';
import path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { chunkText, SLOW_TEXT, useAcpStack } from '../harness/acp-fixture';

/**
 * What no other ACP agent has: the turn lives in the worker, not in the agent process. A session is
 * loaded with its conversation replayed; a turn still running (started by another process, or by a
 * `strand acp` killed with SIGKILL) keeps streaming into the loading client and its end shows; and
 * a stream of malformed input is answered line by line while the process goes on.
 */
const acpStack = useAcpStack('acp-durability');

const indexOf = (sent: any[], pred: (m: any) => boolean) => sent.findIndex(pred);
const load = (a: { agent: acp.ClientContext }, sessionId: string) => a.agent.request('session/load', { sessionId, cwd: acpStack.workspace, mcpServers: [] });
const turnEnds = (updates: acp.SessionUpdate[]) => updates.filter((u) => u.sessionUpdate === 'session_info_update').map((u) => (u._meta as any)?.strand);

test('load replays the stored conversation before its answer: prompts, thinking, text, tool calls with their diffs', async () => {
  fs.writeFileSync(path.join(acpStack.workspace, 'notes.txt'), 'hello world\n');
  const a = await acpStack.agent();
  const sid = (await acpStack.newSession(a, 'acp-edit')).sessionId;
  a.onPermission = async () => ({ outcome: { outcome: 'selected', optionId: 'allow-always' } });
  await a.agent.request('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: 'edit the note' }] });
  const live = a.updates(sid).filter((u) => u.sessionUpdate !== 'usage_update' && u.sessionUpdate !== 'available_commands_update' && u.sessionUpdate !== 'config_option_update');
  await a.kill();

  const b = await acpStack.agent();
  expect(await load(b, sid)).toMatchObject({ modes: { currentModeId: 'ask' } });
  const answered = indexOf(b.sent, (m) => m.result?.modes !== undefined);
  const replayed = b.sent.slice(0, answered).filter((m) => m.method === 'session/update').map((m) => m.params.update as acp.SessionUpdate);
  expect(replayed.map((u) => u.sessionUpdate)).toEqual(['user_message_chunk', 'agent_thought_chunk', 'agent_message_chunk', 'tool_call', 'tool_call_update', 'agent_message_chunk']);
  expect(chunkText(replayed, 'user_message_chunk')).toBe('edit the note');
  // The same conversation as it streamed, chunked as stored instead of as streamed.
  expect(chunkText(replayed, 'agent_message_chunk')).toBe(chunkText(live, 'agent_message_chunk'));
  expect(chunkText(replayed, 'agent_thought_chunk')).toBe(chunkText(live, 'agent_thought_chunk'));
  const finalCall = live.filter((u) => u.sessionUpdate === 'tool_call_update').pop();
  expect(replayed[4]).toEqual({ ...finalCall, rawOutput: undefined, sessionUpdate: 'tool_call_update' });
  // "Allow always" stayed with the session: the next edit of that tool is not asked about.
  expect(b.sent.some((m) => m.method === 'session/request_permission')).toBe(false);
  await expect(load(b, 'no-such-session')).rejects.toMatchObject({ code: -32002 });
});

test('load while a turn of the session runs: the rest of it streams in live, exactly once, and its end shows', async () => {
  const a = await acpStack.agent();
  // Started (and initialized) first: the load must come while the turn runs.
  const b = await acpStack.agent();
  const sid = (await acpStack.newSession(a, 'acp-slow')).sessionId;
  const answer = a.agent.request('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: 'talk slowly' }] });
  await a.until(() => chunkText(a.updates(sid), 'agent_message_chunk').length > 40, 30_000, 'some words');
  await load(b, sid);
  // The load came while the turn ran: part of the answer came after the load's answer.
  const answered = indexOf(b.sent, (m) => m.result?.modes !== undefined);
  expect(await answer).toEqual({ stopReason: 'end_turn' });
  await b.until(() => turnEnds(b.updates(sid)).length > 0, 30_000, "the turn's end");
  expect(chunkText(b.sent.slice(answered).filter((m) => m.method === 'session/update').map((m) => m.params.update), 'agent_message_chunk')).toMatch(/the end\.$/);
  expect(chunkText(b.updates(sid), 'user_message_chunk')).toBe('talk slowly');
  expect(chunkText(b.updates(sid), 'agent_message_chunk')).toBe(SLOW_TEXT);
  expect(chunkText(a.updates(sid), 'agent_message_chunk')).toBe(SLOW_TEXT);
  expect(turnEnds(b.updates(sid))).toEqual([{ turnId: 't1', outcome: 'done' }]);
});

test('kill -9 of the agent mid-turn: the turn goes on, and a new process that loads the session sees it finish', async () => {
  const a = await acpStack.agent();
  const b = await acpStack.agent();
  const sid = (await acpStack.newSession(a, 'acp-slow')).sessionId;
  void a.agent.request('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: 'talk slowly' }] }).catch(() => undefined);
  await a.until(() => chunkText(a.updates(sid), 'agent_message_chunk').length > 20, 30_000, 'some words');
  await a.kill('SIGKILL');
  const shown = chunkText(a.updates(sid), 'agent_message_chunk');
  expect(shown.length).toBeLessThan(SLOW_TEXT.length);
  await load(b, sid);
  expect((await acpStack.get(`/api/sessions/${sid}`)).active_turn).toBe('t1');
  await b.until(() => turnEnds(b.updates(sid)).length > 0, 30_000, "the turn's end");
  expect(chunkText(b.updates(sid), 'agent_message_chunk')).toBe(SLOW_TEXT);
  expect(turnEnds(b.updates(sid))).toEqual([{ turnId: 't1', outcome: 'done' }]);
  const stored = (await acpStack.get(`/api/sessions/${sid}/messages`)).messages;
  expect(stored.map((m: any) => m.message.role)).toEqual(['user', 'assistant']);
  expect(stored[1].message.content).toEqual([{ type: 'text', text: SLOW_TEXT }]);
  // The new process serves the session as its own: a prompt there works.
  await b.agent.request('session/set_config_option', { sessionId: sid, configId: 'model', value: 'scripted/echo' });
  expect(await b.agent.request('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: 'still there?' }] })).toEqual({ stopReason: 'end_turn' });
});

test('1,000 malformed lines each get their JSON-RPC error, and a prompt after them works', async () => {
  const a = await acpStack.agent();
  const sid = (await acpStack.newSession(a)).sessionId;
  const kinds: Array<[string, number, (i: number) => string]> = [
    ['not JSON', -32700, (i) => `{"jsonrpc": "2.0", "id": ${i}, "method": `],
    ['not a request', -32600, (i) => (i % 2 ? '[1, 2]' : JSON.stringify({ jsonrpc: '2.0', id: `raw-x${i}`, result: 1, method: 7 }))],
    ['unknown method', -32601, (i) => JSON.stringify({ jsonrpc: '2.0', id: `raw-m${i}`, method: `session/fly${i}`, params: {} })],
    ['bad params', -32602, (i) => JSON.stringify({ jsonrpc: '2.0', id: `raw-p${i}`, method: 'session/prompt', params: { sessionId: sid, prompt: i } })],
  ];
  const before = a.sent.length;
  for (let i = 0; i < 1_000; i++) a.writeRaw(kinds[i % 4]![2](i));
  const errors = () => a.sent.slice(before).filter((m) => m.error);
  await a.until(() => errors().length >= 1_000, 60_000, '1,000 errors');
  const codes = new Map<number, number>();
  for (const e of errors()) codes.set(e.error.code, (codes.get(e.error.code) ?? 0) + 1);
  expect(Object.fromEntries(codes)).toEqual({ '-32700': 250, '-32600': 250, '-32601': 250, '-32602': 250 });
  // Requests with an id are answered with it; what has no usable id is answered with null.
  expect(errors().filter((e) => e.error.code === -32601).every((e) => String(e.id).startsWith('raw-m'))).toBe(true);
  expect(errors().filter((e) => e.error.code === -32700).every((e) => e.id === null)).toBe(true);

  expect(await a.agent.request('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: 'hi' }] })).toEqual({ stopReason: 'end_turn' });
  expect(chunkText(a.updates(sid), 'agent_message_chunk')).toBe('You said: hi');
  expect(a.child.exitCode).toBeNull();
  // Bad input is the client's mistake, not the agent's: nothing on stderr.
  expect(a.stderr).toBe('');
});

test('requests before initialize, to unknown sessions, with unsupported content or an unknown key are refused; the agent goes on', async () => {
  const a = await acpStack.agent({}, false);
  expect((await a.rawRequest('session/new', { cwd: acpStack.workspace, mcpServers: [] })).error).toMatchObject({ code: -32600 });
  await a.initialize();
  await expect(a.agent.request('session/prompt', { sessionId: 'nope', prompt: [{ type: 'text', text: 'x' }] })).rejects.toMatchObject({ code: -32002 });
  const sid = (await acpStack.newSession(a)).sessionId;
  await expect(a.agent.request('session/prompt', { sessionId: sid, prompt: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] })).rejects.toMatchObject({ code: -32602 });
  // Strict params (docs/acp.md): an unknown key inside a content block is refused naming its path, no turn runs.
  const typo = await a.rawRequest('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: 'first ' }, { type: 'text', text: 'second', annotations: { priority: 1, colour: 'red' } }] });
  expect(typo.error).toEqual({
    code: -32602,
    message: 'Invalid params: params.prompt[1].annotations.colour: unrecognized key',
    data: { code: 'INVALID_REQUEST', problems: ['params.prompt[1].annotations.colour: unrecognized key'] },
  });
  expect(await a.agent.request('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: 'ok' }] })).toEqual({ stopReason: 'end_turn' });
  expect(chunkText(a.updates(sid), 'agent_message_chunk')).toBe('You said: ok');
  const stored = await acpStack.get(`/api/sessions/${sid}/messages`);
  expect(stored.messages.map((m: any) => m.message.role)).toEqual(['user', 'assistant']);
  expect(a.stderr).toBe('');
});
