import { parseCli, UsageError } from './cli-args';
import { COMMAND_HELP } from './cli-help';

/** `strand hook …` as the command line parses it (the commands themselves run in test/e2e/job-hooks.test.ts). */

function refusal(...argv: string[]): string {
  try {
    parseCli(argv);
  } catch (err) {
    if (err instanceof UsageError) return err.message;
    throw err;
  }
  throw new Error(`${argv.join(' ')} was accepted`);
}

test('each action with its arguments', () => {
  expect(parseCli(['hook'])).toEqual({ command: 'hook', action: 'list' });
  expect(parseCli(['hook', 'list'])).toEqual({ command: 'hook', action: 'list' });
  expect(parseCli(['hook', 'show', 'ci'])).toEqual({ command: 'hook', action: 'show', name: 'ci' });
  expect(parseCli(['hook', 'delete', 'ci'])).toEqual({ command: 'hook', action: 'delete', name: 'ci' });
  expect(parseCli(['hook', 'define', 'ci', 'ci.json'])).toEqual({ command: 'hook', action: 'define', name: 'ci', file: 'ci.json' });
  expect(parseCli(['hook', 'sign', 'ci', 'body.json'])).toEqual({ command: 'hook', action: 'sign', name: 'ci', file: 'body.json' });
  expect(parseCli(['hook', 'sign', 'ci', 'body.json', '--secret-env', 'S'])).toEqual({ command: 'hook', action: 'sign', name: 'ci', file: 'body.json', secretEnv: 'S' });
  expect(parseCli(['hook', '--help'])).toEqual({ command: 'help', text: COMMAND_HELP.hook });
});

test('a wrong action, a missing or extra argument, or --secret-env off sign is a usage error', () => {
  expect(refusal('hook', 'fire', 'ci')).toBe('strand hook: unknown action "fire": define, list, show, delete or sign (see `strand hook --help`)');
  expect(refusal('hook', 'show')).toBe('strand hook show: takes a hook name (see `strand hook --help`)');
  expect(refusal('hook', 'define', 'ci')).toBe('strand hook define: takes a hook name and a JSON file (see `strand hook --help`)');
  expect(refusal('hook', 'sign', 'ci', 'a', 'b')).toBe('strand hook sign: takes a hook name and a body file (see `strand hook --help`)');
  expect(refusal('hook', 'list', 'x')).toBe('strand hook list: takes no arguments (see `strand hook --help`)');
  expect(refusal('hook', 'show', 'ci', '--secret-env', 'S')).toBe('strand hook show: --secret-env is for sign only (see `strand hook --help`)');
});
