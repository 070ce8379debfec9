import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveMcpConfig, userMcpFile } from './mcp-files';

describe('resolveMcpConfig', () => {
  let root: string;
  let project: string;
  let home: string;
  const write = (file: string, body: unknown) => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, typeof body === 'string' ? body : JSON.stringify(body));
  };

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-mcp-config-'));
    project = path.join(root, 'project');
    home = path.join(root, 'config');
    fs.mkdirSync(project);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const env = () => ({ XDG_CONFIG_HOME: home });

  it('merges session, project and user servers by name, the session first, then the project, then the user', async () => {
    write(path.join(project, '.mcp.json'), { mcpServers: { shared: { command: 'project-cmd' }, proj: { url: 'http://127.0.0.1:1/mcp' } } });
    write(path.join(home, 'strand', 'mcp.json'), { mcpServers: { shared: { command: 'user-cmd' }, mine: { command: 'user-only' } }, otherTool: { x: 1 } });
    const got = await resolveMcpConfig({ projectPath: project, session: { shared: { command: 'session-cmd' } }, env: env() });
    expect(got.problems).toEqual([]);
    expect(got.servers.map((s) => [s.name, s.source, 'command' in s.config ? s.config.command : s.config.url])).toEqual([
      ['shared', 'session', 'session-cmd'],
      ['proj', 'project', 'http://127.0.0.1:1/mcp'],
      ['mine', 'user', 'user-only'],
    ]);
  });

  it('reads .strand/mcp.json instead of .mcp.json when the project has both', async () => {
    write(path.join(project, '.strand', 'mcp.json'), { mcpServers: { a: { command: 'strand-file' } } });
    write(path.join(project, '.mcp.json'), { mcpServers: { b: { command: 'common-file' } } });
    const got = await resolveMcpConfig({ projectPath: project, env: env() });
    expect(got.servers.map((s) => s.name)).toEqual(['a']);
  });

  it('names a broken file as a problem, without quoting it, and keeps the other sources', async () => {
    write(path.join(project, '.mcp.json'), '{"mcpServers": {"a": {"command": "x", "env": {"K": "sekret-value"}},}');
    write(path.join(home, 'strand', 'mcp.json'), { mcpServers: { bad: { url: 'not a url', headers: { H: 'sekret-header' } } } });
    const got = await resolveMcpConfig({ projectPath: project, session: { s: { command: 'ok' } }, env: env() });
    expect(got.servers.map((s) => s.name)).toEqual(['s']);
    expect(got.problems).toHaveLength(2);
    expect(got.problems[0]).toContain('.mcp.json: not valid JSON');
    expect(got.problems[1]).toContain('mcpServers.bad');
    expect(got.problems.join('\n')).not.toMatch(/sekret/);
  });

  it('changes the hash when a secret changes, so a new config is a new connection', async () => {
    const a = await resolveMcpConfig({ projectPath: project, session: { s: { command: 'x', env: { K: 'one' } } }, env: env() });
    const b = await resolveMcpConfig({ projectPath: project, session: { s: { command: 'x', env: { K: 'two' } } }, env: env() });
    expect(a.servers[0]!.hash).not.toBe(b.servers[0]!.hash);
  });

  it('finds the user file under XDG_CONFIG_HOME, else ~/.config', () => {
    expect(userMcpFile({ XDG_CONFIG_HOME: '/x' })).toBe('/x/strand/mcp.json');
    expect(userMcpFile({ HOME: '/home/u' })).toBe('/home/u/.config/strand/mcp.json');
  });
});
