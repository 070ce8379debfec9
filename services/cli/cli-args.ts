import fs from 'node:fs';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { type InstanceCounts } from '../../infra/stack/instances';
import { instanceCountsFromOptions, UP_DEFAULT_COUNTS } from './instance-flags';
import { COMMAND_HELP, USAGE } from './cli-help';
import { jobCommand, jobsCommand, type JobsCommand } from './job-args';
import type { HookCommand } from './hook-commands';
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
  | { command: 'turns'; action: 'list' }
  | { command: 'turns'; action: 'show' | 'cancel'; turnId: string }
  | JobsCommand
  | ({ command: 'hook' } & HookCommand)
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
  turns: HELP,
  jobs: { ...HELP, status: { type: 'string' } },
  job: { ...HELP, wait: { type: 'boolean' }, json: { type: 'boolean' }, reason: { type: 'string' }, id: { type: 'string' }, message: { type: 'string' } },
  hook: { ...HELP, 'secret-env': { type: 'string' } },
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

/** `strand hook define <name> <file> | list | show <name> | delete <name> | sign <name> <body-file> [--secret-env VAR]`. */
function hookCommand(positionals: string[], secretEnv: string | undefined): CliCommand {
  const see = '(see `strand hook --help`)';
  const [action = 'list', name, file, ...extra] = positionals;
  const arity: Record<string, number> = { list: 0, show: 1, delete: 1, define: 2, sign: 2 };
  const wanted = arity[action];
  if (wanted === undefined) throw new UsageError(`strand hook: unknown action ${JSON.stringify(action)}: define, list, show, delete or sign ${see}`);
  const given = [name, file, ...extra].filter((a) => a !== undefined).length;
  if (given !== wanted) throw new UsageError(`strand hook ${action}: takes ${wanted === 0 ? 'no arguments' : wanted === 1 ? 'a hook name' : action === 'define' ? 'a hook name and a JSON file' : 'a hook name and a body file'} ${see}`);
  if (secretEnv !== undefined && action !== 'sign') throw new UsageError(`strand hook ${action}: --secret-env is for sign only ${see}`);
  if (action === 'list') return { command: 'hook', action };
  if (action === 'show' || action === 'delete') return { command: 'hook', action, name: name! };
  if (action === 'define') return { command: 'hook', action, name: name!, file: file! };
  return { command: 'hook', action: 'sign', name: name!, file: file!, ...(secretEnv ? { secretEnv } : {}) };
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
    case 'turns': {
      const [action = 'list', turnId] = positionals;
      if (action === 'list') {
        rest(1, ' after list');
        return { command: 'turns', action };
      }
      if (action !== 'show' && action !== 'cancel') throw new UsageError(`strand turns: unknown action ${JSON.stringify(action)}: list, show or cancel (see \`strand turns --help\`)`);
      if (turnId === undefined || turnId === '') throw new UsageError(`strand turns ${action}: needs a turn id (see \`strand turns --help\`)`);
      rest(2, ` after the turn id`);
      return { command: 'turns', action, turnId };
    }
    case 'jobs':
      return jobsCommand(values, positionals, rest);
    case 'job':
      return jobCommand(values, positionals, rest, base);
    case 'hook':
      return hookCommand(positionals, text(values['secret-env']));
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
