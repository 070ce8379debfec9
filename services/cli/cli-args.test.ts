import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseCli, UsageError } from './cli-args';
import { COMMAND_HELP, USAGE } from './cli-help';
import { instanceFlags } from './instance-flags';

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-cli-args-'));
fs.mkdirSync(path.join(base, 'proj'));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

const parse = (...argv: string[]) => parseCli(argv, base);
/** The UsageError message a command line gets (and that it is a UsageError, so main exits 2). */
const refusal = (...argv: string[]) => {
  try {
    parse(...argv);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error(`${argv.join(' ')} was accepted`);
};

describe('strand up / supervise', () => {
  test('instance counts come from `--option N` or `--option=N`; up runs two workers unless told otherwise', () => {
    expect(parse('up')).toEqual({ command: 'up', detach: false, instances: { worker: 2 } });
    expect(parse('up', '-d', '--gateways', '2', '--workers=3', '--stores', '2')).toEqual({ command: 'up', detach: true, instances: { gateway: 2, worker: 3, store: 2 } });
    expect(parse('up', '--detach', '--workers', '1')).toEqual({ command: 'up', detach: true, instances: { worker: 1 } });
    expect(parse('supervise', '--detached')).toEqual({ command: 'supervise', detached: true, instances: {} });
  });

  test('the runner gets the counts back as options, and reads them the same', () => {
    const counts = { gateway: 2, store: 2 };
    expect(instanceFlags(counts)).toEqual(['--gateways', '2', '--stores', '2']);
    expect(parse('supervise', ...instanceFlags(counts))).toEqual({ command: 'supervise', detached: false, instances: counts });
  });

  test('an unknown option, a missing value, a bad count or a stray argument names what is wrong and where help is', () => {
    expect(refusal('up', '--worker', '2')).toBe('strand up: unknown option --worker (see `strand up --help`)');
    expect(refusal('up', '--workers')).toBe('strand up: --workers needs a value (see `strand up --help`)');
    expect(refusal('up', '--gateways', 'two')).toBe('strand up: --gateways needs a number of instances, got "two"');
    expect(refusal('up', '--stores=0')).toMatch(/^strand up: store instances: 0 is not a whole number from 1 to 8/);
    expect(refusal('up', '--detach=yes')).toBe('strand up: --detach takes no value (see `strand up --help`)');
    expect(refusal('up', 'now')).toBe('strand up: unexpected argument "now" (see `strand up --help`)');
    expect(refusal('down', '-f')).toBe('strand down: unknown option -f (see `strand down --help`)');
  });
});

describe('strand turns', () => {
  test('list by default; show and cancel take a turn id', () => {
    expect(parse('turns')).toEqual({ command: 'turns', action: 'list' });
    expect(parse('turns', 'list')).toEqual({ command: 'turns', action: 'list' });
    expect(parse('turns', 'show', 'session:a:turn:1')).toEqual({ command: 'turns', action: 'show', turnId: 'session:a:turn:1' });
    expect(parse('turns', 'cancel', 't')).toEqual({ command: 'turns', action: 'cancel', turnId: 't' });
  });

  test('a missing id or an unknown action is refused', () => {
    expect(refusal('turns', 'show')).toBe('strand turns show: needs a turn id (see `strand turns --help`)');
    expect(refusal('turns', 'stop', 't')).toBe('strand turns: unknown action "stop": list, show or cancel (see `strand turns --help`)');
    expect(refusal('turns', 'cancel', 'a', 'b')).toBe('strand turns: unexpected argument "b" after the turn id (see `strand turns --help`)');
  });
});

describe('strand jobs and strand job', () => {
  test('`jobs` and `jobs list` list unattended jobs, optionally of one status', () => {
    expect(parse('jobs')).toEqual({ command: 'jobs' });
    expect(parse('jobs', 'list')).toEqual({ command: 'jobs' });
    expect(parse('jobs', '--status', 'running')).toEqual({ command: 'jobs', status: 'running' });
    expect(parse('jobs', 'list', '--status=needs_human')).toEqual({ command: 'jobs', status: 'needs_human' });
    expect(refusal('jobs', '--status', 'done')).toMatch(/^strand jobs: --status is one of running, succeeded, /);
    expect(refusal('jobs', 'show', 'x')).toBe('strand jobs: unknown action "show": list (for one job: strand job show <id>) (see `strand jobs --help`)');
  });

  test('run takes a spec file (resolved where strand runs) or - for stdin, an --id and --wait', () => {
    expect(parse('job', 'run', 'spec.json')).toEqual({ command: 'job', action: 'run', spec: path.join(base, 'spec.json'), wait: false });
    expect(parse('job', 'run', '-', '--wait', '--id', 'fix-42')).toEqual({ command: 'job', action: 'run', spec: '-', jobId: 'fix-42', wait: true });
    expect(refusal('job', 'run')).toBe('strand job run: needs a spec file (or - for stdin) (see `strand job --help`)');
    expect(refusal('job', 'run', 'a.json', 'b.json')).toBe('strand job: unexpected argument "b.json" after the spec file (see `strand job --help`)');
    expect(refusal('job', 'run', 'a.json', '--id=')).toBe('strand job run: --id needs a value (see `strand job --help`)');
  });

  test('show, report [--json], cancel take a job id; answer takes the call and allow or deny, with an optional reason', () => {
    expect(parse('job', 'show', 'j1')).toEqual({ command: 'job', action: 'show', jobId: 'j1' });
    expect(parse('job', 'cancel', 'j1')).toEqual({ command: 'job', action: 'cancel', jobId: 'j1' });
    expect(parse('job', 'report', 'j1')).toEqual({ command: 'job', action: 'report', jobId: 'j1', json: false });
    expect(parse('job', 'report', 'j1', '--json')).toEqual({ command: 'job', action: 'report', jobId: 'j1', json: true });
    expect(parse('job', 'answer', 'j1', 'call_1', 'allow')).toEqual({ command: 'job', action: 'answer', jobId: 'j1', toolCallId: 'call_1', decision: 'allow' });
    expect(parse('job', 'answer', 'j1', 'call_1', 'deny', '--reason', 'not on main')).toEqual({ command: 'job', action: 'answer', jobId: 'j1', toolCallId: 'call_1', decision: 'deny', reason: 'not on main' });
    expect(parse('job', 'resume', 'j1', 'allow', '--message', 'go ahead')).toEqual({ command: 'job', action: 'resume', jobId: 'j1', decision: 'allow', message: 'go ahead' });
    expect(parse('job', 'resume', 'j1', 'deny')).toEqual({ command: 'job', action: 'resume', jobId: 'j1', decision: 'deny' });
  });

  test('a missing action, id or answer, an unknown action and an option of another action are refused', () => {
    expect(refusal('job')).toBe('strand job: needs an action: run, show, report, cancel, answer, resume (see `strand job --help`)');
    expect(refusal('job', 'stop', 'j1')).toBe('strand job: unknown action "stop": run, show, report, cancel, answer, resume (see `strand job --help`)');
    expect(refusal('job', 'show')).toBe('strand job show: needs a job id (see `strand job --help`)');
    expect(refusal('job', 'show', 'j1', 'j2')).toBe('strand job: unexpected argument "j2" after the job id (see `strand job --help`)');
    expect(refusal('job', 'answer', 'j1')).toBe("strand job answer: needs the escalated call's id (strand job show <id> lists them) (see `strand job --help`)");
    expect(refusal('job', 'answer', 'j1', 'call_1', 'yes')).toBe('strand job answer: the answer is allow or deny, not "yes" (see `strand job --help`)');
    expect(refusal('job', 'answer', 'j1', 'call_1')).toBe('strand job answer: the answer is allow or deny (see `strand job --help`)');
    expect(refusal('job', 'resume', 'j1', 'yes')).toBe('strand job resume: the decision for the call the job stopped at is allow or deny, not "yes" (see `strand job --help`)');
    expect(refusal('job', 'answer', 'j1', 'call_1', 'allow', '--message', 'x')).toBe('strand job answer: --message is an option of `strand job resume` (see `strand job --help`)');
    expect(refusal('job', 'show', 'j1', '--json')).toBe('strand job show: --json is an option of `strand job report` (see `strand job --help`)');
    expect(refusal('job', 'report', 'j1', '--wait')).toBe('strand job report: --wait is an option of `strand job run` (see `strand job --help`)');
    expect(refusal('job', 'run', 'a.json', '--reason', 'x')).toBe('strand job run: --reason is an option of `strand job answer` (see `strand job --help`)');
  });
});

describe('strand rpc-edn', () => {
  test('defaults to the directory it runs in', () => {
    expect(parse('rpc-edn')).toEqual({ command: 'rpc-edn', cwd: base });
  });

  test('reads --cwd (relative to where it runs) and --session-id, with or without =', () => {
    expect(parse('rpc-edn', '--cwd', 'proj', '--session-id', 's1')).toEqual({ command: 'rpc-edn', cwd: path.join(base, 'proj'), sessionId: 's1' });
    expect(parse('rpc-edn', `--cwd=${base}/proj`, '--session-id=a=b')).toEqual({ command: 'rpc-edn', cwd: path.join(base, 'proj'), sessionId: 'a=b' });
  });

  test.each([
    [['--verbose'], 'strand rpc-edn: unknown option --verbose (see `strand rpc-edn --help`)'],
    [['--cwd'], 'strand rpc-edn: --cwd needs a value (see `strand rpc-edn --help`)'],
    [['--session-id', ''], 'strand rpc-edn: --session-id needs a value (see `strand rpc-edn --help`)'],
    [['proj'], 'strand rpc-edn: unexpected argument "proj" (see `strand rpc-edn --help`)'],
  ])('refuses %j', (args, message) => {
    expect(refusal('rpc-edn', ...args)).toBe(message);
  });

  test('refuses a --cwd that is not a directory', () => {
    expect(refusal('rpc-edn', '--cwd', 'missing')).toBe(`strand rpc-edn: --cwd ${path.join(base, 'missing')} is not a directory`);
  });
});

describe('strand acp', () => {
  test('defaults to the directory it runs in; reads --cwd relative to it', () => {
    expect(parse('acp')).toEqual({ command: 'acp', cwd: base });
    expect(parse('acp', '--cwd', 'proj')).toEqual({ command: 'acp', cwd: path.join(base, 'proj') });
    expect(parse('acp', '--help')).toEqual({ command: 'help', text: COMMAND_HELP.acp });
  });

  test.each([
    [['--session-id', 's1'], 'strand acp: unknown option --session-id (see `strand acp --help`)'],
    [['--cwd'], 'strand acp: --cwd needs a value (see `strand acp --help`)'],
    [['--cwd', 'missing'], `strand acp: --cwd ${path.join(base, 'missing')} is not a directory`],
    [['proj'], 'strand acp: unexpected argument "proj" (see `strand acp --help`)'],
  ])('refuses %j', (args, message) => {
    expect(refusal('acp', ...args)).toBe(message);
  });
});

describe('strand chat', () => {
  test('the session wish, a one-turn prompt and --yes', () => {
    expect(parse('chat')).toEqual({ command: 'chat', cwd: base, new: false, yes: false });
    expect(parse('chat', '--session', 's1', '-p', 'hi there', '-y')).toEqual({ command: 'chat', cwd: base, sessionId: 's1', prompt: 'hi there', new: false, yes: true });
    expect(parse('chat', '--new', '--prompt=x')).toEqual({ command: 'chat', cwd: base, prompt: 'x', new: true, yes: false });
    expect(parse('chat', '--help')).toEqual({ command: 'help', text: COMMAND_HELP.chat });
  });
  test('--cwd names the project, relative to where strand runs', () => {
    expect(parse('chat', '--cwd', 'proj', '--new')).toEqual({ command: 'chat', cwd: path.join(base, 'proj'), new: true, yes: false });
    expect(parse('chat', `--cwd=${path.join(base, 'proj')}`)).toEqual({ command: 'chat', cwd: path.join(base, 'proj'), new: false, yes: false });
  });
  test.each([
    [['--session', 's1', '--new'], 'strand chat: --session and --new exclude each other'],
    [['-p', ''], 'strand chat: -p needs a prompt (see `strand chat --help`)'],
    [['--session'], 'strand chat: --session needs a value (see `strand chat --help`)'],
    [['hello'], 'strand chat: unexpected argument "hello" (quote the prompt: -p "…") (see `strand chat --help`)'],
    [['--model', 'x'], 'strand chat: unknown option --model (see `strand chat --help`)'],
    [['--cwd', 'missing'], `strand chat: --cwd ${path.join(base, 'missing')} is not a directory`],
  ])('%j is refused', (args, message) => {
    expect(refusal('chat', ...args)).toBe(message);
  });
});

describe('help', () => {
  test('strand, strand --help and strand help print the usage; a command with --help, -h or after help prints its own', () => {
    for (const argv of [[], ['--help'], ['-h'], ['help']]) expect(parse(...argv)).toEqual({ command: 'help', text: USAGE });
    expect(parse('up', '--help')).toEqual({ command: 'help', text: COMMAND_HELP.up });
    expect(parse('rpc-edn', '-h')).toEqual({ command: 'help', text: COMMAND_HELP['rpc-edn'] });
    expect(parse('help', 'jobs')).toEqual({ command: 'help', text: COMMAND_HELP.jobs });
    expect(parse('help', 'job')).toEqual({ command: 'help', text: COMMAND_HELP.job });
    expect(parse('help', 'turns')).toEqual({ command: 'help', text: COMMAND_HELP.turns });
    // --help wins over what else is wrong on the line, as people type it to find out what is.
    expect(parse('up', '--workers', 'x', '--help')).toEqual({ command: 'help', text: COMMAND_HELP.up });
  });

  test('every option a command takes is in its help', () => {
    expect(COMMAND_HELP.up).toEqual(expect.stringContaining('--gateways N'));
    for (const option of ['-d, --detach', '--workers N', '--stores N']) expect(COMMAND_HELP.up).toContain(option);
    for (const option of ['--cwd DIR', '--session-id ID']) expect(COMMAND_HELP['rpc-edn']).toContain(option);
    expect(COMMAND_HELP.jobs).toContain('--status STATUS');
    for (const option of ['--id ID', '--wait', '--json', '--reason TEXT', 'allow|deny']) expect(COMMAND_HELP.job).toContain(option);
  });

  test('an unknown command gets the usage', () => {
    expect(refusal('start')).toBe(`strand: unknown command "start"\n\n${USAGE}`);
    expect(refusal('help', 'start')).toBe(`strand help: no command "start"\n\n${USAGE}`);
  });
});
