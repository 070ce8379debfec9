import { createToolWiring, scrubbedShellEnv } from './tool-wiring';

describe('worker tool wiring', () => {
  test('commands the model runs never see the worker credentials', () => {
    const env = scrubbedShellEnv({ PATH: '/bin', HOME: '/h', ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: 'k', GITHUB_TOKEN: 't', STRAND_TOKENS: 'a:b', STRAND_TOKENS_FILE: '/f', DB_PASSWORD: 'p', AWS_SECRET: 's' });
    expect(env).toEqual({ PATH: '/bin', HOME: '/h' });
  });

  test('offers every tool with a JSON Schema, and knows which only read', () => {
    const wiring = createToolWiring({ STRAND_TOOL_OUTPUT_DIR: '/tmp/strand-tool-output-test' });
    expect(wiring.tools.map((t) => t.name).sort()).toEqual(['delete_file', 'edit_file', 'git_diff', 'git_status', 'list_files', 'read_file', 'search_files', 'shell_exec', 'task', 'write_file']);
    expect(wiring.tools.every((t) => t.input_schema.type === 'object')).toBe(true);
    expect(['read_file', 'list_files', 'search_files', 'git_status', 'git_diff'].every(wiring.isReadOnly)).toBe(true);
    expect(['write_file', 'edit_file', 'delete_file', 'shell_exec', 'nope'].some(wiring.isReadOnly)).toBe(false);
  });
});
