import fs from 'node:fs';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { type InstanceCounts } from '../../infra/stack/instances';
import { instanceCountsFromOptions, UP_DEFAULT_COUNTS } from './instance-flags';
import { COMMAND_HELP, USAGE } from './cli-help';
import { parseScheduleCommand, SCHEDULE_OPTIONS, type ScheduleCommand } from './schedule-commands';

/**
 * The `strand` command line, parsed by node:util's parseArgs, one option table per command: an
 * unknown option, a missing value or a stray argument is a UsageError naming it and the command's
 * `--help`; `--help` (or `-h`, or `strand help <command>`) is a command of its own.
 */

/** A command line that cannot be run; main prints the message and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export type CliCommand =
  | { command: 'help'; text: string }
  | { command: 'up'; detach: boolean; instances: InstanceCounts }
  | { command: 'supervise'; detached: boolean; instances: InstanceCounts }
  | { command: 'down' }
  | { command: 'status' }
  | { command: 'jobs'; action: 'list' }
  | { command: 'jobs'; action: 'show' | 'cancel'; jobId: string }
  | ScheduleCommand
  | { command: 'rpc-edn'; cwd: string; sessionId?: string }
  | { command: 'acp'; cwd: string }
  | { command: 'chat'; cwd: string; prompt?: string; sessionId?: string; new: boolean; yes: boolean };

type Options = NonNullable<ParseArgsConfig['options']>;
const HELP: Options = { help: { type: 'boolean', short: 'h' } };
const INSTANCES: Options = { gateways: { type: 'string' }, workers: { type: 'string' }, stores: { type: 'string' } };

/** The options each command takes (every one also takes --help). */
const OPTIONS: Record<keyof typeof COMMAND_HELP, Options> = {
  up: { ...HELP, ...INSTANCES, detach: { type: 'boolean', short: 'd' }, detached: { type: 'boolean' } },
  supervise: { ...HELP, ...INSTANCES, detached: { type: 'boolean' } },
  down: HELP,
  status: HELP,
  jobs: HELP,
  schedule: SCHEDULE_OPTIONS,
  'rpc-edn': { ...HELP, cwd: { type: 'string' }, 'session-id': { type: 'string' } },
  acp: { ...HELP, cwd: { type: 'string' } },
  chat: { ...HELP, cwd: { type: 'string' }, prompt: { type: 'string', short: 'p' }, session: { type: 'string' }, new: { type: 'boolean' }, yes: { type: 'boolean', short: 'y' } },
};

const isCommand = (name: string): name is keyof typeof COMMAND_HELP => Object.hasOwn(COMMAND_HELP, name);

/** parseArgs' own errors say "Option '--x <value>' argument missing" and the like; ours name the command and where help is. */
function parseFor(command: keyof typeof COMMAND_HELP, args: string[]) {
  const see = `(see \`strand ${command} --help\`)`;
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, options: OPTIONS[command], allowPositionals: true, strict: true });
  } catch (err) {
    const { code, message } = err as { code?: string; message: string };
    // The option as the message quotes it: '--x', '--x <value>' or '-d, --detach'.
    const quoted = (/'([^']*)'/.exec(message)?.[1] ?? '').split(/[ ,]+/);
    const option = quoted.find((t) => t.startsWith('--')) ?? quoted[0] ?? '';
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new UsageError(`strand ${command}: unknown option ${option} ${see}`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      // parseArgs says the same for a value given to a boolean flag (`--detach=yes`).
      const boolean = OPTIONS[command][option.replace(/^-+/, '')]?.type === 'boolean';
      throw new UsageError(`strand ${command}: ${option} ${boolean ? 'takes no value' : 'needs a value'} ${see}`);
    }
    throw new UsageError(`strand ${command}: ${message} ${see}`);
  }
  const rest = (max: number, what: string) => {
    if (parsed.positionals.length > max) throw new UsageError(`strand ${command}: unexpected argument ${JSON.stringify(parsed.positionals[max])}${what} ${see}`);
  };
  return { values: parsed.values as Record<string, string | boolean | undefined>, positionals: parsed.positionals, rest };
}

const text = (v: string | boolean | undefined) => (typeof v === 'string' ? v : undefined);

function counts(command: string, values: Record<string, string | boolean | undefined>): InstanceCounts {
  try {
    return instanceCountsFromOptions({ gateways: text(values.gateways), workers: text(values.workers), stores: text(values.stores) });
  } catch (err) {
    throw new UsageError(`strand ${command}: ${(err as Error).message}`);
  }
}

/** `--cwd DIR` resolved against where strand runs; it must be a directory. */
function cwdOption(command: 'rpc-edn' | 'acp' | 'chat', raw: string | undefined, base: string): string {
  if (raw === '') throw new UsageError(`strand ${command}: --cwd needs a value (see \`strand ${command} --help\`)`);
  const cwd = raw === undefined ? base : path.resolve(base, raw);
  if (!fs.statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`strand ${command}: --cwd ${cwd} is not a directory`);
  return cwd;
}

/** `strand chat`: a prompt (`-p`) makes it print one answer; `--session` and `--new` exclude each other. */
function chatCommand(values: Record<string, string | boolean | undefined>, rest: (max: number, what: string) => void, base: string): CliCommand {
  rest(0, ' (quote the prompt: -p "…")');
  const prompt = text(values.prompt);
  const sessionId = text(values.session);
  if (prompt === '') throw new UsageError('strand chat: -p needs a prompt (see `strand chat --help`)');
  if (sessionId === '') throw new UsageError('strand chat: --session needs a session id (see `strand chat --help`)');
  if (sessionId !== undefined && values.new) throw new UsageError('strand chat: --session and --new exclude each other');
  return { command: 'chat', cwd: cwdOption('chat', text(values.cwd), base), ...(prompt !== undefined ? { prompt } : {}), ...(sessionId !== undefined ? { sessionId } : {}), new: !!values.new, yes: !!values.yes };
}

/** Parses `strand`'s arguments (without node and the script); `base` is where relative paths start. */
export function parseCli(argv: string[], base = process.cwd()): CliCommand {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h') return { command: 'help', text: USAGE };
  if (name === 'help') {
    const about = args[0];
    if (about === undefined) return { command: 'help', text: USAGE };
    if (!isCommand(about)) throw new UsageError(`strand help: no command ${JSON.stringify(about)}\n\n${USAGE}`);
    return { command: 'help', text: COMMAND_HELP[about] };
  }
  if (!isCommand(name)) throw new UsageError(`strand: unknown command ${JSON.stringify(name)}\n\n${USAGE}`);
  const { values, positionals, rest } = parseFor(name, args);
  if (values.help) return { command: 'help', text: COMMAND_HELP[name] };
  switch (name) {
    case 'up':
      rest(0, '');
      return { command: 'up', detach: !!(values.detach || values.detached), instances: { ...UP_DEFAULT_COUNTS, ...counts(name, values) } };
    case 'supervise':
      rest(0, '');
      return { command: 'supervise', detached: !!values.detached, instances: counts(name, values) };
    case 'down':
    case 'status':
      rest(0, '');
      return { command: name };
    case 'jobs': {
      const [action = 'list', jobId] = positionals;
      if (action === 'list') {
        rest(1, ' after list');
        return { command: 'jobs', action };
      }
      if (action !== 'show' && action !== 'cancel') throw new UsageError(`strand jobs: unknown action ${JSON.stringify(action)}: list, show or cancel (see \`strand jobs --help\`)`);
      if (jobId === undefined || jobId === '') throw new UsageError(`strand jobs ${action}: needs a job id (see \`strand jobs --help\`)`);
      rest(2, ` after the job id`);
      return { command: 'jobs', action, jobId };
    }
    case 'schedule': {
      const parsed = parseScheduleCommand(positionals, values, base);
      if (typeof parsed === 'string') throw new UsageError(parsed);
      return parsed;
    }
    case 'rpc-edn': {
      rest(0, '');
      const sessionId = text(values['session-id']);
      if (sessionId === '') throw new UsageError('strand rpc-edn: --session-id needs a value (see `strand rpc-edn --help`)');
      return { command: 'rpc-edn', cwd: cwdOption(name, text(values.cwd), base), ...(sessionId !== undefined ? { sessionId } : {}) };
    }
    case 'chat':
      return chatCommand(values, rest, base);
    case 'acp':
      rest(0, '');
      return { command: 'acp', cwd: cwdOption(name, text(values.cwd), base) };
  }
}
