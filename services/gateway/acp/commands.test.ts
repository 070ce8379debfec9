import { commandsFor } from '../../../contracts/slash-commands';
import { ACP_COMMANDS, commandOfPrompt, runCommand } from './commands';
import type { JobService } from '../jobs/job-service';
import type { SessionService } from '../sessions/session-service';

test("ACP's available commands are the shared table's ACP entries: name, help, argument hint", () => {
  expect(ACP_COMMANDS).toEqual(commandsFor('acp').map((c) => ({ name: c.name, description: c.help, ...(c.args ? { input: { hint: c.args } } : {}) })));
  expect(ACP_COMMANDS.map((c) => c.name)).toEqual(['model', 'thinking', 'compact', 'name', 'status', 'jobs', 'job', 'help']);
  expect(ACP_COMMANDS.find((c) => c.name === 'model')?.input).toEqual({ hint: '[provider/model]' });
});

test('a prompt naming no ACP command is an ordinary prompt; a bad argument answers the usage without calling the session', async () => {
  expect(commandOfPrompt('/new')).toBeUndefined();
  expect(commandOfPrompt('/etc/hosts looks wrong')).toBeUndefined();
  expect(commandOfPrompt('please /compact')).toBeUndefined();
  expect(commandOfPrompt('/model anthropic/claude-sonnet-4-5')).toEqual({ ok: true, command: { name: 'model', model: 'anthropic/claude-sonnet-4-5' } });
  const bad = commandOfPrompt('/thinking lots')!;
  const untouched = new Proxy({}, { get: () => { throw new Error('the session was called'); } }) as unknown as SessionService;
  const untouchedJobs = new Proxy({}, { get: () => { throw new Error('the jobs were called'); } }) as unknown as JobService;
  expect(await runCommand(bad, { sessions: untouched, jobs: untouchedJobs, sessionId: 's1', principal: undefined })).toMatch(/^\/thinking takes one of off, minimal, low, medium, high, xhigh \("lots" is not a thinking level\)/);
  expect(await runCommand(commandOfPrompt('/help')!, { sessions: untouched, jobs: untouchedJobs, sessionId: 's1', principal: undefined })).toBe(commandsFor('acp').map((c) => `/${c.name}${c.args ? ` ${c.args}` : ''}: ${c.help}`).join('\n'));
});
