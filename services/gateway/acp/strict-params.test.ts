import * as acp from '@agentclientprotocol/sdk';
import type { z } from 'zod';
import {
  acpAuthenticateParams,
  acpCancelParams,
  acpInitializeParams,
  acpLoadSessionParams,
  acpNewSessionParams,
  acpPromptParams,
  acpSetConfigOptionParams,
  acpSetModeParams,
} from '../../../contracts/acp-requests';
import { schemaErrors } from '../../../test/harness/acp-schema';
import { mapPaths, tolerantObjects, withKeyAt } from '../../../test/harness/strict-walk';
import { strictParams } from './strict-params';

/**
 * The params of every ACP method strand serves are strict at every depth (docs/acp.md, "Strict
 * params"), with two openings: `_meta` anywhere, and the client's capabilities. The requests checked
 * are real ones: sent by the ACP SDK's own client (its session builder and prompt helper where it has
 * them, the shapes the e2e tests and their harness send otherwise) to an agent that records them raw.
 */
const SCHEMAS: Record<string, z.ZodType> = {
  initialize: acpInitializeParams,
  authenticate: acpAuthenticateParams,
  'session/new': acpNewSessionParams,
  'session/load': acpLoadSessionParams,
  'session/prompt': acpPromptParams,
  'session/cancel': acpCancelParams,
  'session/set_mode': acpSetModeParams,
  'session/set_config_option': acpSetConfigOptionParams,
};

/** The spec's name of each method's params (schema.json). */
const SPEC_TYPES: Record<string, string> = {
  initialize: 'InitializeRequest',
  authenticate: 'AuthenticateRequest',
  'session/new': 'NewSessionRequest',
  'session/load': 'LoadSessionRequest',
  'session/prompt': 'PromptRequest',
  'session/cancel': 'CancelNotification',
  'session/set_mode': 'SetSessionModeRequest',
  'session/set_config_option': 'SetSessionConfigOptionRequest',
};

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const annotations = { audience: ['user' as const], priority: 0.5, lastModified: '2026-11-29T00:00:00Z' };

/** What the SDK's client puts on the wire for each call, as the agent receives it (method, params). */
async function capturedRequests(): Promise<Array<[string, any]>> {
  const seen: Array<[string, any]> = [];
  const answers: Record<string, unknown> = {
    initialize: { protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: { loadSession: true }, authMethods: [] },
    'session/new': { sessionId: 's1' },
    'session/prompt': { stopReason: 'end_turn' },
    'session/set_config_option': { configOptions: [] },
  };
  const recorder = acp
    .agent({ name: 'recorder' })
    .onRequest('*', ({ method, params }) => {
      seen.push([method, JSON.parse(JSON.stringify(params))]);
      return answers[method] ?? {};
    })
    .onNotification('*', ({ method, params }) => {
      seen.push([method, JSON.parse(JSON.stringify(params))]);
    });
  await acp.client({ name: 'capture' }).connectWith(recorder, async (agent) => {
    // As test/harness/acp-client.ts initializes (an editor offering files and a terminal), then with everything the spec names.
    await agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true } });
    await agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false, auth: { terminal: false }, session: { notices: {} }, _meta: { zed: true } },
      clientInfo: { name: 'zed', title: 'Zed', version: '0.200.0' },
      _meta: { trace: 'x' },
    });
    await agent.request(acp.methods.agent.authenticate, { methodId: 'strand-token' });
    const session = await agent
      .buildSession('/work/project')
      .withAdditionalDirectories(['/work/lib'])
      .withMcpServer({ name: 'files', command: '/usr/bin/mcp-files', args: ['--stdio'], env: [{ name: 'TOKEN', value: 'secret' }] })
      .withMcpServer({ type: 'http', name: 'web', url: 'http://127.0.0.1:9/mcp', headers: [{ name: 'Authorization', value: 'Bearer x' }] })
      .withMcpServer({ type: 'sse', name: 'old', url: 'http://127.0.0.1:9/sse', headers: [] })
      .start();
    await session.prompt('hello');
    await session.prompt([
      { type: 'text', text: 'look at ', annotations },
      { type: 'resource_link', uri: 'file:///work/project/a.ts', name: 'a.ts', title: 'a.ts', description: 'the file', mimeType: 'text/x-typescript', size: 120, annotations },
      { type: 'resource', resource: { uri: 'file:///work/project/b.ts', text: 'export {}', mimeType: 'text/x-typescript' }, annotations, _meta: { selection: [1, 2] } },
      { type: 'resource', resource: { uri: 'file:///work/project/c.bin', blob: 'AAAA', mimeType: 'application/octet-stream' } },
      { type: 'image', mimeType: 'image/png', data: PNG, annotations },
      { type: 'audio', mimeType: 'audio/wav', data: 'AAAA' },
    ]);
    await agent.request(acp.methods.agent.session.load, { sessionId: 's1', cwd: '/work/project', mcpServers: [] });
    await agent.request(acp.methods.agent.session.setMode, { sessionId: 's1', modeId: 'auto' });
    await agent.request(acp.methods.agent.session.setConfigOption, { sessionId: 's1', configId: 'model', value: 'scripted/echo' });
    await agent.request(acp.methods.agent.session.setConfigOption, { sessionId: 's1', configId: 'flag', type: 'boolean', value: true });
    await agent.notify(acp.methods.agent.session.cancel, { sessionId: 's1' });
    // The notification has no answer: a last request makes sure it has arrived.
    await agent.request(acp.methods.agent.session.setMode, { sessionId: 's1', modeId: 'ask' });
  });
  return seen;
}

let requests: Array<[string, any]>;
beforeAll(async () => {
  requests = await capturedRequests();
});

/** The -32602 error a parser throws for `params` ('' when it accepts them). */
function refusal(method: string, params: unknown): string {
  try {
    strictParams(SCHEMAS[method]!)(params);
    return '';
  } catch (err) {
    expect(err).toBeInstanceOf(acp.RequestError);
    expect((err as acp.RequestError).code).toBe(-32602);
    return (err as acp.RequestError).message;
  }
}

test('every request the SDK client sends is valid ACP and passes its schema unchanged (nothing is dropped)', () => {
  expect(new Set(requests.map(([m]) => m))).toEqual(new Set(Object.keys(SCHEMAS)));
  for (const [method, params] of requests) {
    expect([method, schemaErrors(SPEC_TYPES[method]!, params)]).toEqual([method, '']);
    expect([method, strictParams(SCHEMAS[method]!)(params)]).toEqual([method, params]);
  }
});

test('every object of every schema refuses keys it does not name, but for _meta and the client capabilities', () => {
  for (const [method, schema] of Object.entries(SCHEMAS)) {
    const open = tolerantObjects(schema);
    if (method === 'initialize') expect(open.length).toBeGreaterThan(0);
    expect([method, open.filter((at) => !at.startsWith('params.clientCapabilities'))]).toEqual([method, []]);
  }
});

test('an unknown key at every depth of every request is -32602 naming its path; inside _meta or the capabilities it is taken', () => {
  const jsonPath = (path: Array<string | number>) => path.reduce<string>((at, k) => (typeof k === 'number' ? `${at}[${k}]` : `${at}.${k}`), 'params');
  let refused = 0;
  let taken = 0;
  for (const [method, params] of requests) {
    for (const path of mapPaths(params)) {
      const open = path.includes('_meta') || path[0] === 'clientCapabilities';
      const problem = refusal(method, withKeyAt(params, path, 'colour'));
      if (open) {
        expect([method, path, problem]).toEqual([method, path, '']);
        taken++;
      } else {
        expect([method, path, problem]).toEqual([method, path, `Invalid params: ${jsonPath([...path, 'colour'])}: unrecognized key`]);
        refused++;
      }
    }
  }
  // The top level of 12 requests, clientInfo, 3 MCP servers with an env entry and a header, 7 content
  // blocks with 4 annotations and 2 resources.
  expect(refused).toBe(31);
  // The capabilities' 7 objects in both initializes and their _meta, a request's and a block's _meta.
  expect(taken).toBe(10);
});

test('the path is the JSON one a client reads: array indices in brackets, every unknown key named', () => {
  const prompt = { sessionId: 's1', prompt: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b', annotations: { foo: 1, bar: 2 } }] };
  expect(refusal('session/prompt', prompt)).toBe('Invalid params: params.prompt[1].annotations.foo: unrecognized key; params.prompt[1].annotations.bar: unrecognized key');
  const server = { cwd: '/w', mcpServers: [{ name: 'x', command: 'c', args: [], env: [{ name: 'A', value: 'b', secret: true }] }] };
  expect(refusal('session/new', server)).toBe('Invalid params: params.mcpServers[0].env[0].secret: unrecognized key');
  expect(refusal('session/prompt', { ...prompt, sessionID: 's1' })).toContain('params.sessionID: unrecognized key');
  // An embedded resource is text or blob: the closer of the two says what is wrong, not a bare "Invalid input".
  const resource = (r: object) => ({ sessionId: 's1', prompt: [{ type: 'resource', resource: { uri: 'file:///a', ...r } }] });
  expect(refusal('session/prompt', resource({ blob: 'AAAA', colour: 1 }))).toBe('Invalid params: params.prompt[0].resource.colour: unrecognized key');
  expect(refusal('session/prompt', resource({ text: 'a', blob: 'AAAA' }))).toBe('Invalid params: params.prompt[0].resource.blob: unrecognized key');
  expect(refusal('session/prompt', resource({}))).toBe('Invalid params: params.prompt[0].resource.text: Invalid input: expected string, received undefined');
});

test('values have the spec\'s types, null where the spec allows it; a stdio server has no type; unknown block kinds are refused', () => {
  const text = (block: object) => ({ sessionId: 's1', prompt: [{ type: 'text', text: 'x', ...block }] });
  expect(refusal('session/prompt', text({ annotations: null, _meta: null }))).toBe('');
  expect(refusal('session/prompt', text({ annotations: { priority: 'high' } }))).toMatch(/^Invalid params: params\.prompt\[0\]\.annotations\.priority: /);
  expect(refusal('session/prompt', { sessionId: 's1', prompt: [{ type: 'video', data: 'x' }] })).toMatch(/^Invalid params: params\.prompt\[0\]\.type: /);
  expect(refusal('session/prompt', { sessionId: 's1' })).toMatch(/^Invalid params: params\.prompt: /);
  // The spec lets a client send these lists as null, meaning empty.
  expect(strictParams(acpNewSessionParams)({ cwd: '/w', mcpServers: null })).toEqual({ cwd: '/w', mcpServers: [] });
  expect(strictParams(acpNewSessionParams)({ cwd: '/w', mcpServers: [{ name: 'x', command: 'c', args: null, env: null }] })).toEqual({ cwd: '/w', mcpServers: [{ name: 'x', command: 'c', args: [], env: [] }] });
  expect(refusal('session/new', { cwd: '/w', mcpServers: [{ type: 'stdio', name: 'x', command: 'c', args: [], env: [] }] })).toBe(
    'Invalid params: params.mcpServers[0].type: an MCP server\'s type is "http" or "sse", and a stdio server has none',
  );
  expect(refusal('session/set_config_option', { sessionId: 's1', configId: 'flag', type: 'boolean', value: 'yes' })).toMatch(/^Invalid params: params\.value: /);
  // Capabilities: a newer client's capability is taken, and a known one of the wrong type is dropped as the spec says.
  const init = strictParams(acpInitializeParams)({ protocolVersion: 1, clientCapabilities: { terminal: 'yes', teleport: { range: 3 }, session: { notices: {}, future: true } } });
  expect(init.clientCapabilities).toEqual({ teleport: { range: 3 }, session: { notices: {}, future: true } });
});
