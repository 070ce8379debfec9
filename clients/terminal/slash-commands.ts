import { commandsFor, commandUsage, type SlashCommandSpec } from '../../contracts/slash-commands';

/**
 * The chat's side of the slash commands (the table and the parser are contracts/slash-commands.ts):
 * what Tab completes, what the line under the input suggests, and what `/help` prints.
 */
export const CHAT_COMMANDS: readonly SlashCommandSpec[] = commandsFor('chat');

/** The commands a partly typed `/na` could be (none once a space follows the name). */
export function slashCandidates(text: string): SlashCommandSpec[] {
  const m = /^\/(\S*)$/.exec(text);
  if (!m) return [];
  return CHAT_COMMANDS.filter((c) => c.name.startsWith(m[1]!.toLowerCase()));
}

/** Tab: the typed command completed when one fits, or as far as every candidate agrees. */
export function completeSlash(text: string): string {
  const candidates = slashCandidates(text);
  if (candidates.length === 0) return text;
  if (candidates.length === 1) return `/${candidates[0]!.name} `;
  const names: string[] = candidates.map((c) => c.name);
  let common = names[0]!;
  for (const n of names) while (!n.startsWith(common)) common = common.slice(0, -1);
  return `/${common}`.length > text.length ? `/${common}` : text;
}

/** What `/help` prints: the commands, then the keys. */
export function helpText(): string {
  const width = Math.max(...CHAT_COMMANDS.map((c) => commandUsage(c).length));
  const commands = CHAT_COMMANDS.map((c) => `  ${commandUsage(c).padEnd(width)}  ${c.help}`);
  return [
    'Commands (Tab completes):',
    ...commands,
    'Keys:',
    '  Enter               send (while a turn runs: queue it as a follow-up)',
    '  Ctrl-S              while a turn runs: steer it (its next step reads the text)',
    '  Alt-Enter, Ctrl-J   new line (also: a line ending in \\ before Enter)',
    '  Up / Down           earlier prompts (on the first / last line)',
    '  Esc                 abort the running turn',
    '  Ctrl-O              show or fold thinking',
    '  Ctrl-C              clear the input; twice: quit',
    '  y / a / n           on an approval: allow, always allow, reject (then a reason, Enter)',
  ].join('\n');
}
