import fs from 'node:fs';
import path from 'node:path';
import { commandsFor, commandUsage, findCommand, parseSlashCommand, SLASH_COMMANDS, type ParsedCommand } from './slash-commands';

const ok = (text: string, surface: 'chat' | 'edn' | 'acp' = 'chat'): ParsedCommand => {
  const r = parseSlashCommand(text, surface);
  if (!r?.ok) throw new Error(`${text}: ${JSON.stringify(r)}`);
  return r.command;
};
const error = (text: string, surface: 'chat' | 'edn' | 'acp' = 'chat') => {
  const r = parseSlashCommand(text, surface);
  if (r === undefined || r.ok) throw new Error(`${text} parsed: ${JSON.stringify(r)}`);
  return r;
};

test('every command of the table parses bare, on every surface that offers it', () => {
  for (const c of SLASH_COMMANDS) {
    for (const surface of c.surfaces) expect(ok(`/${c.name}`, surface).name).toBe(c.name);
  }
});

test('names and aliases are unique across the table', () => {
  const all = SLASH_COMMANDS.flatMap((c) => [c.name, ...c.aliases]);
  expect(new Set(all).size).toBe(all.length);
});

test('aliases and case mean the command', () => {
  expect(ok('/?', 'edn')).toEqual({ name: 'help' });
  expect(ok('/exit', 'edn')).toEqual({ name: 'quit' });
  expect(ok('/EXIT', 'chat')).toEqual({ name: 'quit' });
  expect(ok('/logout', 'edn')).toEqual({ name: 'login' });
  expect(findCommand('Model', 'acp')?.name).toBe('model');
});

test('/model takes provider/model, and provider model (the EDN client documents it)', () => {
  expect(ok('/model')).toEqual({ name: 'model' });
  expect(ok('/model anthropic/claude-sonnet-4-5')).toEqual({ name: 'model', model: 'anthropic/claude-sonnet-4-5' });
  expect(ok('/model openai gpt-5', 'edn')).toEqual({ name: 'model', model: 'openai/gpt-5' });
  expect(ok('/model openai openai/gpt-5', 'edn')).toEqual({ name: 'model', model: 'openai/gpt-5' });
  expect(ok('/model openai/gpt-5', 'acp')).toEqual({ name: 'model', model: 'openai/gpt-5' });
  // A bare catalog id goes to the gateway as it is (it resolves it, or answers UNKNOWN_MODEL).
  expect(ok('/model gpt-5')).toEqual({ name: 'model', model: 'gpt-5' });
  expect(error('/model openai/gpt-5/x').error).toBe('/model takes provider/model, e.g. /model anthropic/claude-sonnet-4-5 ("openai/gpt-5/x" is not one) (usage: /model [provider/model])');
  expect(error('/model a b c').unknown).toBe(false);
  expect(error('/model /gpt-5').unknown).toBe(false);
});

test('/thinking takes a level', () => {
  expect(ok('/thinking')).toEqual({ name: 'thinking' });
  expect(ok('/thinking HIGH')).toEqual({ name: 'thinking', level: 'high' });
  expect(error('/thinking lots', 'acp').error).toMatch(/^\/thinking takes one of off, minimal, low, medium, high, xhigh \("lots" is not a thinking level\)/);
});

test('/plan: on, off or nothing (switch over)', () => {
  expect(ok('/plan')).toEqual({ name: 'plan' });
  expect(ok('/plan ON')).toEqual({ name: 'plan', mode: 'on' });
  expect(ok('/plan off')).toEqual({ name: 'plan', mode: 'off' });
  expect(error('/plan maybe').error).toContain('takes on, off or nothing');
});

test('/budget: dollars, tokens, off', () => {
  expect(ok('/budget')).toEqual({ name: 'budget' });
  expect(ok('/budget 5')).toEqual({ name: 'budget', change: { max_cost_usd: 5 } });
  expect(ok('/budget $2.50')).toEqual({ name: 'budget', change: { max_cost_usd: 2.5 } });
  expect(ok('/budget usd 1')).toEqual({ name: 'budget', change: { max_cost_usd: 1 } });
  expect(ok('/budget usd off')).toEqual({ name: 'budget', change: { max_cost_usd: null } });
  expect(ok('/budget tokens 200000')).toEqual({ name: 'budget', change: { max_tokens: 200000 } });
  expect(ok('/budget tokens off')).toEqual({ name: 'budget', change: { max_tokens: null } });
  expect(ok('/budget off')).toEqual({ name: 'budget', change: { max_cost_usd: null, max_tokens: null } });
  for (const bad of ['/budget tokens 1.5', '/budget lots', '/budget -3']) expect(error(bad).error).toContain('/budget takes a dollar amount');
});

test('/undo, /redo, /fork, /tree, /resume, /export, /name, /compact take their arguments', () => {
  expect(ok('/undo')).toEqual({ name: 'undo', force: false });
  expect(ok('/undo t3 force', 'edn')).toEqual({ name: 'undo', point: 't3', force: true });
  expect(ok('/undo force e-12', 'edn')).toEqual({ name: 'undo', point: 'e-12', force: true });
  expect(error('/undo t1 t2').error).toContain('at most one turn or entry id');
  expect(ok('/redo force')).toEqual({ name: 'redo', force: true });
  expect(error('/redo t1').error).toContain('takes nothing but force');
  expect(ok('/fork e-4', 'edn')).toEqual({ name: 'fork', entryId: 'e-4' });
  expect(ok('/tree s-1')).toEqual({ name: 'tree', sessionId: 's-1' });
  expect(ok('/resume')).toEqual({ name: 'resume' });
  expect(error('/resume a b').error).toContain('at most one id');
  expect(ok('/export notes/out.md')).toEqual({ name: 'export', file: 'notes/out.md' });
  expect(ok('/name my  session', 'acp')).toEqual({ name: 'name', title: 'my  session' });
  expect(ok('/compact keep the tests', 'acp')).toEqual({ name: 'compact', instructions: 'keep the tests' });
});

test('commands without arguments refuse one, saying the usage', () => {
  expect(error('/help me').error).toBe('/help takes no argument (usage: /help)');
  expect(error('/status now', 'edn').unknown).toBe(false);
});

test('a command a surface does not offer is unknown there, with a pointer to /help', () => {
  expect(error('/new', 'acp')).toEqual({ ok: false, name: 'new', unknown: true, error: 'no command /new (/help lists them)' });
  expect(error('/budget 5', 'edn').unknown).toBe(true);
  expect(error('/history', 'chat').unknown).toBe(true);
  expect(parseSlashCommand('hello /model', 'acp')).toBeUndefined();
});

test('each surface has its own subset of the one table, in its order', () => {
  expect(commandsFor('acp').map((c) => c.name)).toEqual(['model', 'thinking', 'compact', 'name', 'status', 'jobs', 'job', 'help']);
  expect(commandsFor('edn').map((c) => c.name)).toEqual(['model', 'thinking', 'compact', 'undo', 'redo', 'fork', 'tree', 'new', 'resume', 'name', 'history', 'status', 'jobs', 'job', 'login', 'help', 'quit']);
});

test('docs/commands.md lists every command of the table with its usage', () => {
  const page = fs.readFileSync(path.join(__dirname, '..', 'docs', 'commands.md'), 'utf8');
  for (const c of SLASH_COMMANDS) expect(page).toContain(`| \`${commandUsage(c).replace(/\|/g, '\\|')}\` |`);
});

test('/jobs takes nothing; /job takes at most one job id, on EDN and ACP only', () => {
  expect(ok('/jobs', 'edn')).toEqual({ name: 'jobs' });
  expect(ok('/job 20261129-3fa9c2d1', 'acp')).toEqual({ name: 'job', jobId: '20261129-3fa9c2d1' });
  expect(ok('/job', 'edn')).toEqual({ name: 'job' });
  expect(error('/job a b', 'edn').error).toBe('/job takes at most one id (usage: /job [job-id])');
  expect(error('/jobs all', 'acp').error).toBe('/jobs takes no argument (usage: /jobs)');
  expect(error('/jobs', 'chat').unknown).toBe(true);
});
