import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PLAN_MODE_PROMPT } from '../../contracts/plan-mode';
import { buildSystemPrompt } from './system-prompt';

describe('system prompt', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-prompt-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('names the tools, workspace, date and OS, and includes the project instructions', async () => {
    fs.writeFileSync(path.join(dir, 'AGENTS.md'), 'Use tabs.');
    const { text, notices } = await buildSystemPrompt({
      project_path: dir,
      model: 'anthropic/claude-sonnet-4-5',
      tools: [{ name: 'read_file', description: 'Read a file.\nMore.' }],
      now: new Date('2026-11-23T10:00:00Z'),
    });
    expect(text).toContain('- read_file: Read a file.');
    expect(text).toContain(`Workspace: ${dir}`);
    expect(text).toContain('Date: 2026-11-23');
    expect(text).toContain(`OS: ${os.type()}`);
    expect(text.endsWith('Project instructions from AGENTS.md:\nUse tabs.')).toBe(true);
    expect(notices).toEqual([]);
  });

  test('a project without instruction files has no instructions section; a cut one brings its notice', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-prompt-empty-'));
    try {
      expect((await buildSystemPrompt({ project_path: empty, model: 'm/x', tools: [] })).text).not.toContain('Project instructions');
      fs.writeFileSync(path.join(empty, 'AGENTS.md'), 'x'.repeat(100_000));
      const { text, notices } = await buildSystemPrompt({ project_path: empty, model: 'm/x', tools: [], instructionsMaxBytes: 1000 });
      expect(text).toContain(`Project instructions from AGENTS.md:\n${'x'.repeat(1000)}\n[… AGENTS.md cut here: 1000 of 100000 bytes kept`);
      expect(text).not.toContain('x'.repeat(1001));
      expect(notices).toEqual(['project instructions are capped at 1000 bytes: AGENTS.md cut to 1000 of 100000 bytes']);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  test('the plan-mode text is in the prompt only while plan mode is on', async () => {
    const base = { project_path: dir, model: 'm/x', tools: [{ name: 'read_file', description: 'Read a file.' }] };
    const on = (await buildSystemPrompt({ ...base, plan_mode: true })).text;
    expect(on).toContain(PLAN_MODE_PROMPT);
    expect(on).toMatch(/Do not change files and do not run commands/);
    expect((await buildSystemPrompt({ ...base, plan_mode: false })).text).not.toContain('Plan mode');
    expect((await buildSystemPrompt(base)).text).not.toContain('Plan mode');
  });
});
