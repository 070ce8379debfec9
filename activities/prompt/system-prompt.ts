import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Project instruction files read into the prompt, in this order, when present. */
export const PROJECT_INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md'];
/** Past this size an instruction file is cut (a prompt is not the place for a whole manual). */
const MAX_INSTRUCTIONS_BYTES = 32 * 1024;

export interface SystemPromptInput {
  project_path: string;
  model: string;
  tools: ReadonlyArray<{ name: string; description: string }>;
  now?: Date;
}

/**
 * The coding agent's system prompt: who it is and how it works, the tools it has, where it works
 * (workspace path, date, OS), plus the project's own AGENTS.md / CLAUDE.md when present. Read on
 * every step, so an edited instruction file applies from the next step on.
 */
export async function buildSystemPrompt(input: SystemPromptInput): Promise<string> {
  const date = (input.now ?? new Date()).toISOString().slice(0, 10);
  const toolLines = input.tools.map((t) => `- ${t.name}: ${t.description.split('\n')[0]}`).join('\n');
  const sections = [
    [
      'You are strand, a coding agent working in the user\'s project. You read and change files and run commands',
      'through your tools to do what the user asks, then say briefly what you did.',
      '',
      'How to work:',
      '- Look before you change: read the files involved and search the project before editing.',
      '- Make the smallest change that does the job; keep the project\'s style; never invent file contents you have not read.',
      '- Edit with edit_file (exact text that occurs once); write whole files only when creating them or rewriting most of them.',
      '- Run the project\'s tests or build with shell_exec when you change code, and report what they said.',
      '- Some tool calls need the user\'s approval; a rejected call comes back with the user\'s reason: respect it.',
      '- Paths are relative to the workspace root; you cannot reach outside it.',
      '- If something is ambiguous or risky (deleting data, large rewrites), ask first.',
    ].join('\n'),
    toolLines ? `Tools:\n${toolLines}` : 'You have no tools in this session: answer from the conversation alone.',
    [`Workspace: ${input.project_path || '(none)'}`, `Date: ${date}`, `OS: ${os.type()} ${os.release()} (${process.platform})`, `Model: ${input.model}`].join('\n'),
  ];
  for (const name of PROJECT_INSTRUCTION_FILES) {
    const text = await readInstructions(input.project_path, name);
    if (text !== undefined) sections.push(`Project instructions from ${name}:\n${text}`);
  }
  return sections.join('\n\n');
}

async function readInstructions(projectPath: string, name: string): Promise<string | undefined> {
  if (!projectPath) return undefined;
  try {
    const buf = await fs.readFile(path.join(projectPath, name));
    const text = buf.subarray(0, MAX_INSTRUCTIONS_BYTES).toString('utf8');
    return buf.length > MAX_INSTRUCTIONS_BYTES ? `${text}\n[… ${name} cut at ${MAX_INSTRUCTIONS_BYTES} bytes]` : text;
  } catch {
    return undefined;
  }
}
