import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildSystemPrompt } from './system-prompt';

describe('system prompt', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-prompt-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('names the tools, workspace, date and OS, and includes AGENTS.md and CLAUDE.md', async () => {
    fs.writeFileSync(path.join(dir, 'AGENTS.md'), 'Use tabs.');
    fs.writeFileSync(path.join(dir, 'CLAUDE.md'), 'Run make check.');
    const text = await buildSystemPrompt({
      project_path: dir,
      model: 'anthropic/claude-sonnet-4-5',
      tools: [{ name: 'read_file', description: 'Read a file.\nMore.' }],
      now: new Date('2026-11-23T10:00:00Z'),
    });
    expect(text).toContain('- read_file: Read a file.');
    expect(text).toContain(`Workspace: ${dir}`);
    expect(text).toContain('Date: 2026-11-23');
    expect(text).toContain(`OS: ${os.type()}`);
    expect(text.indexOf('Project instructions from AGENTS.md:\nUse tabs.')).toBeLessThan(text.indexOf('Project instructions from CLAUDE.md:\nRun make check.'));
  });

  test('a project without instruction files, and a huge one, are handled', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-prompt-empty-'));
    expect(await buildSystemPrompt({ project_path: empty, model: 'm/x', tools: [] })).not.toContain('Project instructions');
    fs.writeFileSync(path.join(empty, 'AGENTS.md'), 'x'.repeat(100_000));
    const text = await buildSystemPrompt({ project_path: empty, model: 'm/x', tools: [] });
    expect(text).toContain('[… AGENTS.md cut at 32768 bytes]');
    expect(text.length).toBeLessThan(40_000);
    fs.rmSync(empty, { recursive: true, force: true });
  });
});
