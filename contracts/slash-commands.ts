import { thinkingLevelSchema, type ThinkingLevel } from './session-settings';

/**
 * strand's slash commands: one table and one parser for every front end (the terminal chat, the EDN
 * client, ACP editors). Each front end only maps a parsed command onto its own surface; the names,
 * aliases, argument syntax and help live here, so they cannot drift apart (docs/commands.md).
 */
export type CommandSurface = 'chat' | 'edn' | 'acp';

export interface SlashCommandSpec {
  name: string;
  aliases: readonly string[];
  /** The argument syntax as help shows it (brackets: optional). */
  args?: string;
  help: string;
  /** The front ends that offer it (ACP: moving between sessions is the editor's own). */
  surfaces: readonly CommandSurface[];
}

const ALL: readonly CommandSurface[] = ['chat', 'edn', 'acp'];
const TERMINALS: readonly CommandSurface[] = ['chat', 'edn'];

export const SLASH_COMMANDS = [
  { name: 'model', aliases: [], args: '[provider/model]', help: 'pick a model, or switch to the one named', surfaces: ALL },
  { name: 'thinking', aliases: [], args: '[level]', help: `pick a thinking level (${thinkingLevelSchema.options.join(', ')}), or set it`, surfaces: ALL },
  { name: 'plan', aliases: [], args: '[on|off]', help: 'plan mode: the agent only reads and plans (no arg: switch it over)', surfaces: ['chat'] },
  { name: 'budget', aliases: [], args: '[usd | tokens <n> | off]', help: 'the spending caps: set the dollar cap, the token cap, or clear both (a turn waiting at a cap goes on)', surfaces: ['chat'] },
  { name: 'compact', aliases: [], args: '[instructions]', help: 'summarize the conversation so far to free context', surfaces: ALL },
  { name: 'undo', aliases: [], args: '[turn-id|entry-id] [force]', help: 'undo the last turn (or the one named): its file changes put back and the conversation back to before it', surfaces: TERMINALS },
  { name: 'redo', aliases: [], args: '[force]', help: 'redo the last undo: its files and its turn back', surfaces: TERMINALS },
  { name: 'fork', aliases: [], args: '[entry-id]', help: 'continue in a new session holding the conversation up to one of your earlier prompts', surfaces: TERMINALS },
  { name: 'tree', aliases: [], args: '[session-id]', help: "pick one of this project's sessions or a fork point, or switch to the session named", surfaces: TERMINALS },
  { name: 'sessions', aliases: [], help: "pick one of this project's sessions", surfaces: ['chat'] },
  { name: 'new', aliases: [], help: 'start a new session in this project', surfaces: TERMINALS },
  { name: 'resume', aliases: [], args: '[session-id]', help: 'pick a session of any project, or open the one named', surfaces: TERMINALS },
  { name: 'export', aliases: [], args: '[file]', help: 'write the transcript as markdown (default ./strand-<session>.md)', surfaces: ['chat'] },
  { name: 'name', aliases: [], args: '[name]', help: "show or set this session's name", surfaces: ['edn', 'acp'] },
  { name: 'history', aliases: [], help: 'list the conversation so far', surfaces: ['edn'] },
  { name: 'status', aliases: [], help: "show this session's id, model, state and usage", surfaces: ['edn', 'acp'] },
  { name: 'jobs', aliases: [], help: 'list your unattended jobs: status, project, started, escalations waiting', surfaces: ['edn', 'acp'] },
  { name: 'job', aliases: [], args: '[job-id]', help: "show a job (and, in EDN, watch it: its session becomes this client's); no id lists them", surfaces: ['edn', 'acp'] },
  { name: 'login', aliases: ['logout'], help: 'say how strand authenticates to providers (API keys, no login)', surfaces: ['edn'] },
  { name: 'help', aliases: ['?'], help: 'list the commands', surfaces: ALL },
  { name: 'quit', aliases: ['exit'], help: 'close this client (a running turn goes on without it)', surfaces: TERMINALS },
] as const satisfies readonly SlashCommandSpec[];

type SlashCommandName = (typeof SLASH_COMMANDS)[number]['name'];

/** A change of the spending caps, as PATCH …/settings takes it. */
export type BudgetWish = { max_cost_usd?: number | null; max_tokens?: number | null };

/** A command as the parser understands it: every front end maps these, none parses text itself. */
export type ParsedCommand =
  | { name: 'model'; model?: string }
  | { name: 'thinking'; level?: ThinkingLevel }
  | { name: 'plan'; mode?: 'on' | 'off' }
  | { name: 'budget'; change?: BudgetWish }
  | { name: 'compact'; instructions?: string }
  | { name: 'undo'; point?: string; force: boolean }
  | { name: 'redo'; force: boolean }
  | { name: 'fork'; entryId?: string }
  | { name: 'tree'; sessionId?: string }
  | { name: 'resume'; sessionId?: string }
  | { name: 'export'; file?: string }
  | { name: 'name'; title?: string }
  | { name: 'job'; jobId?: string }
  | { name: 'sessions' | 'new' | 'history' | 'status' | 'jobs' | 'login' | 'help' | 'quit' };

export type ParseResult =
  | { ok: true; command: ParsedCommand }
  /** `unknown`: no such command (on this surface); otherwise its argument was wrong. */
  | { ok: false; name: string; unknown: boolean; error: string };

/** The commands a front end offers, in the table's order. */
export function commandsFor(surface: CommandSurface): SlashCommandSpec[] {
  return SLASH_COMMANDS.filter((c) => (c.surfaces as readonly CommandSurface[]).includes(surface));
}

/** `/name args` as help shows it. */
export const commandUsage = (c: SlashCommandSpec): string => `/${c.name}${c.args ? ` ${c.args}` : ''}`;

/** The spec a typed name (or alias) means on a surface. */
export function findCommand(name: string, surface: CommandSurface): SlashCommandSpec | undefined {
  const n = name.toLowerCase();
  return commandsFor(surface).find((c) => c.name === n || c.aliases.includes(n));
}

/**
 * Parses a line a person typed: undefined when it is not a slash command at all (an ordinary prompt),
 * otherwise the typed command or why it is wrong, worded for the person (`/help lists them`).
 */
export function parseSlashCommand(text: string, surface: CommandSurface): ParseResult | undefined {
  const m = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m) return undefined;
  const typed = m[1]!.toLowerCase();
  const arg = (m[2] ?? '').trim();
  const spec = findCommand(typed, surface);
  if (!spec) return { ok: false, name: typed, unknown: true, error: `no command /${typed} (/help lists them)` };
  const name = spec.name as SlashCommandName;
  const bad = (why: string): ParseResult => ({ ok: false, name, unknown: false, error: `/${name} ${why} (usage: ${commandUsage(spec)})` });
  const words = arg.split(/\s+/).filter(Boolean);
  const optional = arg ? arg : undefined;
  switch (name) {
    case 'model': {
      if (words.length === 0) return { ok: true, command: { name } };
      // `provider/model`, or a bare catalog id (the gateway resolves it or answers UNKNOWN_MODEL);
      // `provider model` (the EDN client's documented form) means `provider/model`.
      if (words.length === 1 && /^[^/]+(\/[^/]+)?$/.test(words[0]!)) return { ok: true, command: { name, model: words[0]! } };
      if (words.length === 2 && !words[0]!.includes('/')) return { ok: true, command: { name, model: words[1]!.includes('/') ? words[1]! : `${words[0]}/${words[1]}` } };
      return bad(`takes provider/model, e.g. /model anthropic/claude-sonnet-4-5 ("${arg}" is not one)`);
    }
    case 'thinking': {
      if (!arg) return { ok: true, command: { name } };
      const level = thinkingLevelSchema.safeParse(arg.toLowerCase());
      return level.success ? { ok: true, command: { name, level: level.data } } : bad(`takes one of ${thinkingLevelSchema.options.join(', ')} ("${arg}" is not a thinking level)`);
    }
    case 'plan': {
      const word = arg.toLowerCase();
      if (word === '') return { ok: true, command: { name } };
      return word === 'on' || word === 'off' ? { ok: true, command: { name, mode: word } } : bad('takes on, off or nothing (to switch it over)');
    }
    case 'budget': {
      if (!arg) return { ok: true, command: { name } };
      const change = budgetChange(words.map((w) => w.toLowerCase()));
      return change ? { ok: true, command: { name, change } } : bad('takes a dollar amount (/budget 5), tokens <n> (/budget tokens 200000), or off');
    }
    case 'undo': {
      const points = words.filter((w) => w !== 'force');
      if (points.length > 1) return bad('takes at most one turn or entry id');
      return { ok: true, command: { name, ...(points[0] ? { point: points[0] } : {}), force: words.includes('force') } };
    }
    case 'redo':
      if (words.some((w) => w !== 'force')) return bad('takes nothing but force');
      return { ok: true, command: { name, force: words.includes('force') } };
    case 'fork':
    case 'tree':
    case 'resume':
    case 'job': {
      if (words.length > 1) return bad('takes at most one id');
      if (name === 'job') return { ok: true, command: { name, ...(words[0] ? { jobId: words[0] } : {}) } };
      if (name === 'fork') return { ok: true, command: { name, ...(words[0] ? { entryId: words[0] } : {}) } };
      return { ok: true, command: { name, ...(words[0] ? { sessionId: words[0] } : {}) } };
    }
    case 'compact':
      return { ok: true, command: { name, ...(optional ? { instructions: optional } : {}) } };
    case 'export':
      return { ok: true, command: { name, ...(optional ? { file: optional } : {}) } };
    case 'name':
      return { ok: true, command: { name, ...(optional ? { title: optional } : {}) } };
    default:
      return arg ? bad('takes no argument') : { ok: true, command: { name } };
  }
}

const amount = (w: string | undefined) => {
  const plain = w?.replace(/^\$/, '');
  return plain !== undefined && /^\d+(\.\d+)?$/.test(plain) ? Number(plain) : undefined;
};

/** `5` → the dollar cap, `tokens 200000` → the token cap, `usd 1`, `tokens off`, `off` → both cleared. */
function budgetChange(words: string[]): BudgetWish | undefined {
  if (words.length === 1 && (words[0] === 'off' || words[0] === 'none')) return { max_cost_usd: null, max_tokens: null };
  if (words.length === 1) {
    const usd = amount(words[0]);
    return usd === undefined ? undefined : { max_cost_usd: usd };
  }
  if (words.length === 2 && words[0] === 'tokens') {
    if (words[1] === 'off') return { max_tokens: null };
    const n = amount(words[1]);
    return n !== undefined && Number.isInteger(n) ? { max_tokens: n } : undefined;
  }
  if (words.length === 2 && words[0] === 'usd') {
    if (words[1] === 'off') return { max_cost_usd: null };
    const usd = amount(words[1]);
    return usd === undefined ? undefined : { max_cost_usd: usd };
  }
  return undefined;
}
