/** The chat's slash commands: what `/help` lists and what Tab completes. */
export const SLASH_COMMANDS = [
  { name: 'model', args: '[provider/model]', description: 'pick a model, or switch to the one named' },
  { name: 'thinking', args: '[level]', description: 'pick a thinking level (off, minimal, low, medium, high, xhigh), or set it' },
  { name: 'plan', args: '[on|off]', description: 'plan mode: the agent only reads and plans (no arg: switch it over)' },
  { name: 'budget', args: '[usd | tokens <n> | off]', description: 'the spending caps; set the dollar cap, the token cap, or clear both (a turn waiting at a cap goes on)' },
  { name: 'compact', args: '[instructions]', description: 'summarize the conversation so far to free context' },
  { name: 'undo', description: 'undo the last turn: its file changes put back and the conversation back to before it (again: one more turn back)' },
  { name: 'redo', description: 'redo the last /undo: its files and its turn back' },
  { name: 'fork', description: 'continue in a new session from one of your earlier prompts' },
  { name: 'tree', description: "this project's sessions and this session's fork points" },
  { name: 'sessions', description: "pick one of this project's sessions" },
  { name: 'new', description: 'start a new session in this project' },
  { name: 'resume', args: '[session-id]', description: 'pick a session of any project, or open the one named' },
  { name: 'export', args: '[file]', description: 'write the transcript as markdown (default ./strand-<session>.md)' },
  { name: 'help', description: 'the commands and keys' },
  { name: 'quit', description: 'close the chat (a running turn goes on without it)' },
] as const;

export type SlashName = (typeof SLASH_COMMANDS)[number]['name'];

/** `/model openai/gpt-5` → `{name: 'model', arg: 'openai/gpt-5'}`; text that is not a command → undefined. */
export function parseSlash(text: string): { name: string; arg: string; known: boolean } | undefined {
  const m = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m) return undefined;
  const name = m[1]!.toLowerCase();
  return { name, arg: (m[2] ?? '').trim(), known: SLASH_COMMANDS.some((c) => c.name === name) };
}

/** The commands a partly typed `/na` could be (none once a space follows the name). */
export function slashCandidates(text: string): Array<(typeof SLASH_COMMANDS)[number]> {
  const m = /^\/(\S*)$/.exec(text);
  if (!m) return [];
  return SLASH_COMMANDS.filter((c) => c.name.startsWith(m[1]!.toLowerCase()));
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

/** `/plan` switches plan mode over; `/plan on|off` sets it; anything else → undefined. */
export function planModeWanted(arg: string, current: boolean): boolean | undefined {
  const word = arg.trim().toLowerCase();
  if (word === '') return !current;
  if (word === 'on') return true;
  if (word === 'off') return false;
  return undefined;
}

/** A change of the caps as PATCH …/settings takes it. */
export type BudgetWish = { max_cost_usd?: number | null; max_tokens?: number | null };

/**
 * `/budget 5` → the dollar cap, `/budget tokens 200000` → the token cap, `/budget off` → both
 * cleared; `/budget` alone → `show`; anything else → undefined (the chat says how to use it).
 */
export function budgetWanted(arg: string): BudgetWish | 'show' | undefined {
  const words = arg.trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return 'show';
  if (words.length === 1 && (words[0] === 'off' || words[0] === 'none')) return { max_cost_usd: null, max_tokens: null };
  const number = (w: string | undefined) => (w !== undefined && /^\d+(\.\d+)?$/.test(w.replace(/^\$/, '')) ? Number(w.replace(/^\$/, '')) : undefined);
  if (words.length === 1) {
    const usd = number(words[0]);
    return usd === undefined ? undefined : { max_cost_usd: usd };
  }
  if (words.length === 2 && words[0] === 'tokens') {
    if (words[1] === 'off') return { max_tokens: null };
    const n = number(words[1]);
    return n !== undefined && Number.isInteger(n) ? { max_tokens: n } : undefined;
  }
  if (words.length === 2 && words[0] === 'usd') {
    if (words[1] === 'off') return { max_cost_usd: null };
    const usd = number(words[1]);
    return usd === undefined ? undefined : { max_cost_usd: usd };
  }
  return undefined;
}

/** The caps as the chat says them: `$5 · 200000 tokens`, or `none`. */
export function budgetText(budget: BudgetWish | undefined): string {
  const caps = [typeof budget?.max_cost_usd === 'number' ? `$${budget.max_cost_usd}` : '', typeof budget?.max_tokens === 'number' ? `${budget.max_tokens} tokens` : ''].filter(Boolean);
  return caps.length > 0 ? caps.join(' · ') : 'none';
}

/** What `/help` prints: the commands, then the keys. */
export function helpText(): string {
  const width = Math.max(...SLASH_COMMANDS.map((c) => `/${c.name}${'args' in c ? ` ${c.args}` : ''}`.length));
  const commands = SLASH_COMMANDS.map((c) => `  ${`/${c.name}${'args' in c ? ` ${c.args}` : ''}`.padEnd(width)}  ${c.description}`);
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
