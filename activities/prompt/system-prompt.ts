import os from 'node:os';
import { PLAN_MODE_PROMPT } from '../../contracts/plan-mode';
import { DEFAULT_INSTRUCTIONS_MAX_BYTES, readProjectInstructions } from './project-instructions';

export interface SystemPromptInput {
  project_path: string;
  model: string;
  tools: ReadonlyArray<{ name: string; description: string }>;
  now?: Date;
  /** The cap on project instruction text (STRAND_INSTRUCTIONS_MAX_BYTES). */
  instructionsMaxBytes?: number;
  /** Plan mode (the approval policy's `plan_mode`): the prompt says to read and plan only. */
  plan_mode?: boolean;
}

export interface SystemPrompt {
  text: string;
  /** Warnings for the turn's event stream: instruction files skipped or cut. */
  notices: string[];
}

/**
 * The coding agent's system prompt: who it is and how it works, the tools it has, where it works
 * (workspace path, date, OS), plus the project's instruction files (project-instructions.ts). Read on
 * every step, so an edited instruction file applies from the next step on.
 */
export async function buildSystemPrompt(input: SystemPromptInput): Promise<SystemPrompt> {
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
    ...(input.plan_mode ? [PLAN_MODE_PROMPT] : []),
    toolLines ? `Tools:\n${toolLines}` : 'You have no tools in this session: answer from the conversation alone.',
    [`Workspace: ${input.project_path || '(none)'}`, `Date: ${date}`, `OS: ${os.type()} ${os.release()} (${process.platform})`, `Model: ${input.model}`].join('\n'),
  ];
  const instructions = await readProjectInstructions(input.project_path, input.instructionsMaxBytes ?? DEFAULT_INSTRUCTIONS_MAX_BYTES);
  if (instructions.text) sections.push(instructions.text);
  return { text: sections.join('\n\n'), notices: instructions.notices };
}
