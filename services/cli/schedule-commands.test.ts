import { parseCli, UsageError } from './cli-args';

/** `strand schedule …` parsed into what it asks the gateway, and refused with a usage message otherwise. */
test('each action parses into its command', () => {
  expect(parseCli(['schedule'])).toEqual({ command: 'schedule', action: 'list' });
  expect(parseCli(['schedule', 'create', 'nightly', '--spec', 'spec.json', '--cron', '0 3 * * *', '--timezone', 'Europe/Paris', '--overlap', 'buffer_one', '--catchup-window', '600', '--pause-on-failure', '--notes'], '/home/me')).toEqual({
    command: 'schedule',
    action: 'create',
    name: 'nightly',
    specFile: '/home/me/spec.json',
    body: { name: 'nightly', cron: '0 3 * * *', timezone: 'Europe/Paris', overlap: 'buffer_one', catchup_window_s: 600, pause_on_failure: true, notes: true },
  });
  expect(parseCli(['schedule', 'create', 'hourly', '--spec', '/s.json', '--every', '1h'])).toMatchObject({ body: { name: 'hourly', interval: '1h' } });
  expect(parseCli(['schedule', 'pause', 'nightly', '--note', 'holidays'])).toEqual({ command: 'schedule', action: 'pause', name: 'nightly', note: 'holidays' });
  expect(parseCli(['schedule', 'backfill', 'nightly', '--from', '2026-01-01T00:00:00Z', '--to', '2026-01-02T00:00:00Z'])).toEqual({ command: 'schedule', action: 'backfill', name: 'nightly', from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' });
  for (const action of ['show', 'resume', 'trigger', 'delete']) expect(parseCli(['schedule', action, 'nightly'])).toEqual({ command: 'schedule', action, name: 'nightly' });
  expect(parseCli(['schedule', '--help'])).toMatchObject({ command: 'help', text: expect.stringContaining('strand schedule backfill <name> --from') });
});

test('a command that cannot run is a usage error naming what is wrong', () => {
  const refused = (argv: string[]) => {
    try {
      parseCli(argv);
    } catch (err) {
      expect(err).toBeInstanceOf(UsageError);
      return (err as Error).message;
    }
    throw new Error(`accepted: ${argv.join(' ')}`);
  };
  expect(refused(['schedule', 'create', 'x', '--every', '1h'])).toMatch(/--spec FILE is required/);
  expect(refused(['schedule', 'create', 'x', '--spec', 's.json'])).toMatch(/one of --cron and --every/);
  expect(refused(['schedule', 'create', 'x', '--spec', 's.json', '--cron', '* * * * *', '--every', '1h'])).toMatch(/one of --cron and --every/);
  expect(refused(['schedule', 'pause'])).toMatch(/needs a schedule name/);
  expect(refused(['schedule', 'backfill', 'x', '--from', '2026-01-01T00:00:00Z'])).toMatch(/--from and --to are required/);
  expect(refused(['schedule', 'rename', 'x'])).toMatch(/unknown action "rename"/);
  expect(refused(['schedule', 'show', 'x', 'y'])).toMatch(/unexpected argument "y"/);
  expect(refused(['schedule', 'list', '--bogus'])).toMatch(/unknown option --bogus/);
});
