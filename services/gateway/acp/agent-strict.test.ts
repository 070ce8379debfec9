import * as acp from '@agentclientprotocol/sdk';
import pino from 'pino';
import { createAcpAgent } from './agent';

/**
 * The agent parses every method's params with strand's strict schemas before anything runs (docs/acp.md,
 * "Strict params"), and the SDK's gate still answers -32600 to a request before `initialize` though
 * `initialize` is served through a parser of strand's. In process: the SDK's client talks to the agent
 * over the SDK's in-memory connection; the stack never answers, so a request that reached its handler
 * would answer -32603, and one refused for its params answers -32602 without asking for the stack.
 */
function agentUnderTest() {
  const logged: Array<Record<string, any>> = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => void logged.push(JSON.parse(line)) });
  let stackAsked = 0;
  const agent = createAcpAgent({
    stack: async () => {
      stackAsked++;
      throw new acp.RequestError(-32603, 'the strand stack is not reachable: this test has none');
    },
    log,
    baseDir: '/tmp',
    auth: { enabled: false, principal: undefined },
    version: 'test',
  });
  const run = <T>(op: (client: acp.ClientContext) => Promise<T>) => acp.client({ name: 'test-editor' }).connectWith(agent.app, op);
  return { run, logged, stackAsked: () => stackAsked, close: () => agent.close() };
}

/** The JSON-RPC error a request answers (its code and message), or 'answered'. */
async function outcome(client: acp.ClientContext, method: string, params: unknown): Promise<{ code: number; message: string } | 'answered'> {
  try {
    await client.request(method as typeof acp.methods.agent.initialize, params as acp.InitializeRequest);
    return 'answered';
  } catch (err) {
    const { code, message } = err as acp.RequestError;
    return { code, message };
  }
}

const INIT = { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true } };

test('initialize is strict but for the capabilities, and the gate before it still holds', async () => {
  const a = agentUnderTest();
  await a.run(async (client) => {
    expect(await outcome(client, 'session/new', { cwd: '/tmp', mcpServers: [] })).toEqual({ code: -32600, message: "Invalid request: ACP connection must be initialized before 'session/new'" });
    expect(await outcome(client, 'initialize', { ...INIT, clientInfo: { name: 'zed', version: '1', colour: 'red' } })).toEqual({ code: -32602, message: 'Invalid params: params.clientInfo.colour: unrecognized key' });
    // A refused initialize initializes nothing.
    expect(await outcome(client, 'session/new', { cwd: '/tmp', mcpServers: [] })).toMatchObject({ code: -32600 });
    // A capability this agent does not know yet is taken.
    const init = await client.request(acp.methods.agent.initialize, { ...INIT, clientCapabilities: { ...INIT.clientCapabilities, teleport: { range: 3 } } as acp.ClientCapabilities });
    expect(init).toMatchObject({ protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: { loadSession: true } });
    expect(await outcome(client, 'session/new', { cwd: '/tmp', mcpServers: [] })).toMatchObject({ code: -32603, message: expect.stringContaining('not reachable') });
  });
  a.close();
});

test('an unknown key in any method is -32602 naming its path, before the stack is asked', async () => {
  const a = agentUnderTest();
  await a.run(async (client) => {
    await client.request(acp.methods.agent.initialize, INIT);
    const refusals: Array<[string, unknown, string]> = [
      ['authenticate', { methodId: 'strand-token', colour: 1 }, 'params.colour'],
      ['session/new', { cwd: '/tmp', mcpServers: [{ name: 'x', command: 'c', args: [], env: [], colour: 1 }] }, 'params.mcpServers[0].colour'],
      ['session/new', { cwd: '/tmp', mcpServers: [{ type: 'http', name: 'x', url: 'http://127.0.0.1:9', headers: [{ name: 'a', value: 'b', colour: 1 }] }] }, 'params.mcpServers[0].headers[0].colour'],
      ['session/load', { sessionId: 's1', cwd: '/tmp', mcpServers: [], colour: 1 }, 'params.colour'],
      ['session/prompt', { sessionId: 's1', prompt: [{ type: 'text', text: 'hi' }, { type: 'text', text: 'there', annotations: { colour: 1 } }] }, 'params.prompt[1].annotations.colour'],
      ['session/prompt', { sessionId: 's1', prompt: [{ type: 'resource_link', uri: 'file:///a', name: 'a', colour: 1 }] }, 'params.prompt[0].colour'],
      ['session/set_mode', { sessionId: 's1', modeId: 'auto', colour: 1 }, 'params.colour'],
      ['session/set_config_option', { sessionId: 's1', configId: 'model', value: 'scripted/echo', colour: 1 }, 'params.colour'],
    ];
    for (const [method, params, path] of refusals) {
      expect([method, await outcome(client, method, params)]).toEqual([method, { code: -32602, message: `Invalid params: ${path}: unrecognized key` }]);
    }
    expect(a.stackAsked()).toBe(0);
    // The same requests without the key reach their handlers (the stack, here unreachable, is asked).
    expect(await outcome(client, 'session/prompt', { sessionId: 's1', prompt: [{ type: 'text', text: 'hi', annotations: { priority: 1 } }] })).toMatchObject({ code: -32603 });
    expect(await outcome(client, 'authenticate', { methodId: 'strand-token' })).toBe('answered');
    expect(a.stackAsked()).toBe(1);
  });
  a.close();
});

test('a cancel with an unknown key is not acted on and says why as a warning', async () => {
  const a = agentUnderTest();
  await a.run(async (client) => {
    await client.request(acp.methods.agent.initialize, INIT);
    await client.notify(acp.methods.agent.session.cancel, { sessionId: 's1', colour: 1 } as acp.CancelNotification);
    await client.notify(acp.methods.agent.session.cancel, { sessionId: 's1' });
    // A request after the notifications: they have been handled when it answers.
    await client.request(acp.methods.agent.authenticate, { methodId: 'strand-token' });
  });
  expect(a.logged.map((l) => [l.level, l.msg, l.problems])).toEqual([[40, 'session/cancel not acted on: Invalid params: params.colour: unrecognized key', ['params.colour: unrecognized key']]]);
  a.close();
});
