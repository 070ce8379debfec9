/**
 * The words of plan mode (docs/plan-mode.md): what the system prompt tells the model while it is on,
 * and the result a refused call returns. Kept apart so the prompt, the refusal and the tests quote
 * the same text.
 */

export const PLAN_MODE_PROMPT = [
  'Plan mode is on.',
  '- You may only read, search and plan: use the read-only tools (reading files, listing, searching, git status and diff).',
  '- Do not change files and do not run commands: such calls are refused and not run.',
  '- End your answer with the plan: a numbered checklist of the concrete changes (files, what to change, how to check it).',
  '- The user switches plan mode off to have the plan carried out.',
].join('\n');

/** The first line is what a client shows in one line; the model reads the whole text. */
export function planModeRefusal(tool: string): string {
  return [
    `Plan mode is on: this ${tool} call was not run.`,
    'Only reading, searching and planning are allowed. Finish the plan; the user can switch plan mode off to carry it out.',
  ].join('\n');
}
