import { mcpServersFromAcp, mcpServersSchema, mcpToolName, redactSecrets, secretValuesOf } from './mcp';

describe('mcpToolName', () => {
  it('joins server and tool under the mcp__ prefix', () => {
    expect(mcpToolName('docs', 'lookup')).toBe('mcp__docs__lookup');
  });

  it('turns characters providers refuse into underscores', () => {
    expect(mcpToolName('my server.v2', 'read/file:now')).toBe('mcp__my_server_v2__read_file_now');
    expect(mcpToolName('my server.v2', 'read/file:now')).toMatch(/^[a-zA-Z0-9_-]+$/);
  });

  it('cuts long names to 64 characters with a hash that keeps them apart', () => {
    const a = mcpToolName('s'.repeat(40), `${'t'.repeat(40)}a`);
    const b = mcpToolName('s'.repeat(40), `${'t'.repeat(40)}b`);
    expect(a).toHaveLength(64);
    expect(b).toHaveLength(64);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[a-zA-Z0-9_-]+$/);
  });

  it('gives a name that clashes with one already taken a hashed one', () => {
    const first = mcpToolName('a', 'b.c');
    const second = mcpToolName('a', 'b_c', new Set([first]));
    expect(first).toBe('mcp__a__b_c');
    expect(second).not.toBe(first);
    expect(second.startsWith('mcp__a__b_c')).toBe(true);
  });
});

describe('redactSecrets', () => {
  it('masks every occurrence of every secret, longest first', () => {
    expect(redactSecrets('token abcd1234 and abcd1234xyz', ['abcd1234', 'abcd1234xyz'])).toBe('token *** and ***');
  });

  it('leaves values shorter than 4 characters alone', () => {
    expect(redactSecrets('a b c', ['b'])).toBe('a b c');
  });

  it('finds the secrets of a config: env values of stdio servers, header values of http ones', () => {
    expect(secretValuesOf({ command: 'x', env: { A: 'one-secret' } })).toEqual(['one-secret']);
    expect(secretValuesOf({ url: 'http://127.0.0.1/mcp', headers: { Authorization: 'Bearer zz' } })).toEqual(['Bearer zz']);
  });
});

describe('mcpServersSchema', () => {
  it('takes stdio and http servers', () => {
    const parsed = mcpServersSchema.parse({ a: { command: 'node', args: ['s.js'], env: { K: 'v' }, cwd: 'tools' }, b: { url: 'http://127.0.0.1:9/mcp', headers: { X: 'y' } } });
    expect(Object.keys(parsed)).toEqual(['a', 'b']);
  });

  it('refuses a server that is neither, and a non-http url', () => {
    expect(mcpServersSchema.safeParse({ a: { args: [] } }).success).toBe(false);
    expect(mcpServersSchema.safeParse({ a: { url: 'file:///etc/passwd' } }).success).toBe(false);
  });
});

describe('mcpServersFromAcp', () => {
  it('maps ACP arrays of name/value pairs to strand maps and leaves SSE servers out', () => {
    expect(
      mcpServersFromAcp([
        { name: 'local', command: 'node', args: ['s.js'], env: [{ name: 'TOKEN', value: 't0ken' }] },
        { type: 'http', name: 'remote', url: 'http://127.0.0.1:1/mcp', headers: [{ name: 'Authorization', value: 'Bearer x' }] },
        { type: 'sse', name: 'old', url: 'http://127.0.0.1:2/sse' },
      ]),
    ).toEqual({
      local: { command: 'node', args: ['s.js'], env: { TOKEN: 't0ken' } },
      remote: { url: 'http://127.0.0.1:1/mcp', headers: { Authorization: 'Bearer x' } },
    });
  });
});
