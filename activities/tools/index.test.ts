import { TOOL_DEFINITIONS, TOOL_NAMES, toolInputSchema, toolsForModel } from '../../contracts/tools';
import { createToolExecutor } from './index';
import { ctxFor, makeSandbox, type Sandbox } from './test-support';

describe('tool definitions', () => {
  test('every binding tool is defined once, with read-only marked', () => {
    expect(TOOL_DEFINITIONS.map((d) => d.name)).toEqual([...TOOL_NAMES]);
    const readOnly = TOOL_DEFINITIONS.filter((d) => d.readOnly).map((d) => d.name);
    // task runs a sub-agent that only reads (docs/subagents.md).
    expect(readOnly).toEqual(['read_file', 'list_files', 'search_files', 'git_status', 'git_diff', 'task']);
  });

  test('the JSON Schema for models is a plain object schema without $schema', () => {
    for (const tool of toolsForModel()) {
      const s = tool.input_schema;
      expect(s.$schema).toBeUndefined();
      expect(s.type).toBe('object');
      expect(typeof s.properties).toBe('object');
      expect(Array.isArray(s.required)).toBe(true);
      expect(JSON.stringify(s)).not.toContain('$schema');
      expect(tool.description.length).toBeGreaterThan(20);
    }
  });

  test('parameter names and requiredness are the binding ones, each described', () => {
    const byName = Object.fromEntries(toolsForModel().map((t) => [t.name, t.input_schema as { properties: Record<string, { description?: string }>; required: string[] }]));
    const shape = Object.fromEntries(Object.entries(byName).map(([n, s]) => [n, { props: Object.keys(s.properties), required: s.required }]));
    expect(shape).toEqual({
      read_file: { props: ['path', 'offset', 'limit'], required: ['path'] },
      write_file: { props: ['path', 'content'], required: ['path', 'content'] },
      edit_file: { props: ['path', 'old', 'new'], required: ['path', 'old', 'new'] },
      delete_file: { props: ['path'], required: ['path'] },
      list_files: { props: ['path', 'pattern'], required: [] },
      search_files: { props: ['pattern', 'path'], required: ['pattern'] },
      shell_exec: { props: ['command', 'timeout_s'], required: ['command'] },
      git_status: { props: [], required: [] },
      git_diff: { props: ['path'], required: [] },
      task: { props: ['description', 'prompt'], required: ['description', 'prompt'] },
    });
    for (const s of Object.values(byName)) for (const p of Object.values(s.properties)) expect(p.description).toBeTruthy();
    expect(toolInputSchema(TOOL_DEFINITIONS[0]!.schema)).toEqual(byName.read_file);
  });
});

describe('createToolExecutor', () => {
  let sb: Sandbox;
  beforeEach(() => (sb = makeSandbox()));
  afterEach(() => sb.cleanup());

  test('exposes the definitions', () => {
    expect(createToolExecutor({ spillDir: sb.spill }).definitions).toBe(TOOL_DEFINITIONS);
  });

  test('an unknown tool is an error result naming the available ones', async () => {
    const res = await createToolExecutor({ spillDir: sb.spill }).execute('rm_rf', {}, ctxFor(sb));
    expect(res).toEqual({ content: expect.stringMatching(/^Unknown tool "rm_rf"\. Available tools: read_file, write_file/), is_error: true });
  });

  test('invalid parameters are an error result with zod issue messages', async () => {
    const ex = createToolExecutor({ spillDir: sb.spill });
    const res = await ex.execute('edit_file', { path: 'a', old: 1, extra: true }, ctxFor(sb));
    expect(res.is_error).toBe(true);
    expect(res.content).toMatch(/^Invalid parameters for edit_file: /);
    expect(res.content).toContain('old: Invalid input: expected string, received number');
    expect(res.content).toContain('new: Invalid input: expected string, received undefined');
    expect(res.content).toContain('Unrecognized key: "extra"');
    expect((await ex.execute('read_file', 'a.txt', ctxFor(sb))).content).toMatch(/^Invalid parameters for read_file: /);
  });

  test('null for an optional parameter means absent', async () => {
    sb.write('a.txt', 'x\n');
    const res = await createToolExecutor({ spillDir: sb.spill }).execute('read_file', { path: 'a.txt', offset: null, limit: null }, ctxFor(sb));
    expect(res).toMatchObject({ is_error: false, content: '     1\tx' });
  });

  test('an unexpected failure inside a tool is an error result, an abort is thrown', async () => {
    const ex = createToolExecutor({ spillDir: sb.spill });
    const res = await ex.execute('read_file', { path: 'a' }, { workspace: 'relative/ws', signal: new AbortController().signal });
    expect(res).toMatchObject({ is_error: true, content: expect.stringContaining('is not an absolute path') });
    const ac = new AbortController();
    const reason = new Error('stop');
    ac.abort(reason);
    await expect(ex.execute('list_files', {}, ctxFor(sb, { signal: ac.signal }))).rejects.toBe(reason);
    await expect(ex.execute('nope', {}, ctxFor(sb, { signal: ac.signal }))).rejects.toBe(reason);
  });
});
