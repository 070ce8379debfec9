import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MCP_SERVERS_METADATA_KEY, type McpStatus } from '../../contracts/mcp';
import { RED_PIXEL_PNG } from '../../test/fixtures/mcp/tools';
import { startFixtureHttpServer, type FixtureHttpServer } from '../../test/fixtures/mcp/http-server';
import { McpPool } from './pool';
import { SessionMcp } from './session-mcp';

const SECRET = 'fixture-secret-7f3a9c';
const HTTP_TOKEN = 'http-token-4b1d2e';
const fixture = path.resolve(__dirname, '../../test/fixtures/mcp/stdio-server.ts');
const tsx = path.resolve(__dirname, '../../node_modules/.bin/tsx');

/**
 * The MCP client against real servers: the fixture over stdio (a child process started by the pool)
 * and over Streamable HTTP (in this process). The session's config comes from its metadata, as the
 * gateway stores it.
 */
// Each test starts a tsx child (seconds on a loaded machine).
jest.setTimeout(60_000);

describe('SessionMcp with real MCP servers', () => {
  let project: string;
  let http: FixtureHttpServer;
  let pool: McpPool;
  let statuses: McpStatus[];
  let servers: Record<string, unknown>;
  let mcp: SessionMcp;

  beforeAll(async () => {
    http = await startFixtureHttpServer({ name: 'remote', token: HTTP_TOKEN, notesDir: os.tmpdir() });
  });
  afterAll(async () => {
    await http.close();
  });

  beforeEach(() => {
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-mcp-'));
    pool = new McpPool({ connectTimeoutMs: 30_000 });
    statuses = [];
    servers = {
      local: { command: tsx, args: [fixture, 'local'], env: { MCP_FIXTURE_TOKEN: SECRET } },
      remote: { url: http.url, headers: { Authorization: `Bearer ${HTTP_TOKEN}` } },
    };
    mcp = new SessionMcp({
      pool,
      store: { get: async () => ({ meta: { metadata: { [MCP_SERVERS_METADATA_KEY]: servers } } }) as never },
      status: { put: async (_id, s) => void statuses.push(s) },
      env: { XDG_CONFIG_HOME: path.join(project, 'no-config') },
    });
  });
  afterEach(async () => {
    await pool.close();
    fs.rmSync(project, { recursive: true, force: true });
  });

  const base = () => ({ session_id: 's1', project_path: project });
  const call = (turn_id: string, name: string, params: unknown) => mcp.call({ ...base(), turn_id, name, params, signal: new AbortController().signal });

  it('offers both servers\' tools as mcp__<server>__<tool> with their schemas and read-only hints', async () => {
    const got = await mcp.stepTools({ ...base(), turn_id: 't1', step: 0 });
    expect(got.failures).toEqual([]);
    const names = got.tools.map((t) => t.name).sort();
    expect(names).toEqual(['mcp__local__fail', 'mcp__local__lookup', 'mcp__local__note_write', 'mcp__local__sleep', 'mcp__local__snapshot', 'mcp__remote__fail', 'mcp__remote__lookup', 'mcp__remote__note_write', 'mcp__remote__sleep', 'mcp__remote__snapshot']);
    const lookup = got.tools.find((t) => t.name === 'mcp__local__lookup')!;
    expect(lookup.input_schema).toMatchObject({ type: 'object', properties: { word: { type: 'string' } }, required: ['word'] });
    expect(got.readOnly.get('mcp__local__lookup')).toBe(true);
    expect(got.readOnly.get('mcp__local__note_write')).toBe(false);
    expect(statuses.at(-1)!.servers.map((s) => [s.name, s.state, s.transport, s.tools.length])).toEqual([
      ['local', 'connected', 'stdio', 5],
      ['remote', 'connected', 'http', 5],
    ]);
    expect(JSON.stringify(statuses)).not.toContain(SECRET);
    expect(JSON.stringify(statuses)).not.toContain(HTTP_TOKEN);
  });

  it('runs calls on both transports; the env and headers reach the servers', async () => {
    const local = await call('t1', 'mcp__local__lookup', { word: 'abc' });
    expect(local.is_error).toBe(false);
    expect(local.content).toMatch(/^local: abc means fixture-3 \(token ok\)/);
    const remote = await call('t1', 'mcp__remote__lookup', { word: 'ab' });
    expect(remote.content).toMatch(/^remote: ab means fixture-2/);
    expect(http.requests.every((r) => r.authorized)).toBe(true);
  });

  it('keeps image blocks and reports isError results as errors', async () => {
    const snap = await call('t1', 'mcp__local__snapshot', {});
    expect(snap.blocks).toEqual([{ type: 'text', text: 'a red pixel' }, { type: 'image', mime: 'image/png', data: RED_PIXEL_PNG }]);
    const failed = await call('t1', 'mcp__remote__fail', {});
    expect(failed).toMatchObject({ is_error: true, content: 'the fixture failed on purpose' });
  });

  it('stops a call when its signal fires', async () => {
    const controller = new AbortController();
    const running = mcp.call({ ...base(), turn_id: 't1', name: 'mcp__local__sleep', params: { seconds: 30 }, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('aborted by the test')), 300);
    await expect(running).rejects.toThrow('aborted by the test');
  });

  it('a server that does not start is a failure with its name; the other works; the next turn tries again', async () => {
    servers.broken = { command: path.join(project, 'no-such-command'), env: { MCP_FIXTURE_TOKEN: SECRET } };
    const got = await mcp.stepTools({ ...base(), turn_id: 't1', step: 0 });
    expect(got.failures.map((f) => f.server)).toEqual(['broken']);
    expect(got.tools.some((t) => t.name === 'mcp__local__lookup')).toBe(true);
    expect(statuses.at(-1)!.servers.find((s) => s.name === 'broken')).toMatchObject({ state: 'failed', tools: [] });
    const answer = await call('t1', 'mcp__broken__lookup', { word: 'x' });
    expect(answer.is_error).toBe(true);
    expect(answer.content).toContain('broken');
    // Fixed before the next turn: started again.
    servers.broken = { command: tsx, args: [fixture, 'broken'] };
    const next = await mcp.stepTools({ ...base(), turn_id: 't2', step: 0 });
    expect(next.failures).toEqual([]);
    expect(next.tools.some((t) => t.name === 'mcp__broken__lookup')).toBe(true);
  });

  it('a call that outlasts tool_timeout_s answers a timeout error', async () => {
    servers.local = { ...(servers.local as object), tool_timeout_s: 1 };
    const slow = await call('t1', 'mcp__local__sleep', { seconds: 20 });
    expect(slow.is_error).toBe(true);
    expect(slow.content).toMatch(/^mcp__local__sleep failed: .*timed out/i);
  });

  it('a server killed mid-call answers an error result; the next turn starts it again', async () => {
    const first = await call('t1', 'mcp__local__lookup', { word: 'a' });
    const pid = Number(/pid=(\d+)/.exec(first.content)![1]);
    const running = call('t1', 'mcp__local__sleep', { seconds: 20 });
    setTimeout(() => process.kill(pid, 'SIGKILL'), 500);
    const cut = await running;
    expect(cut.is_error).toBe(true);
    expect(cut.content).toMatch(/^mcp__local__sleep failed: /);
    const next = await mcp.stepTools({ ...base(), turn_id: 't2', step: 0 });
    expect(next.failures).toEqual([]);
    const again = await call('t2', 'mcp__local__lookup', { word: 'a' });
    expect(Number(/pid=(\d+)/.exec(again.content)![1])).not.toBe(pid);
  });

  it('a server killed between turns is started again on the next turn', async () => {
    const first = await call('t1', 'mcp__local__lookup', { word: 'a' });
    const pid = Number(/pid=(\d+)/.exec(first.content)![1]);
    process.kill(pid, 'SIGKILL');
    await waitFor(async () => !isAlive(pid));
    await mcp.stepTools({ ...base(), turn_id: 't2', step: 0 });
    const second = await call('t2', 'mcp__local__lookup', { word: 'a' });
    expect(second.is_error).toBe(false);
    expect(Number(/pid=(\d+)/.exec(second.content)![1])).not.toBe(pid);
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not reached');
}
