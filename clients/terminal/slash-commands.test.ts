import { commandsFor, parseSlashCommand } from '../../contracts/slash-commands';
import { CHAT_COMMANDS, completeSlash, helpText, slashCandidates } from './slash-commands';

test('a line starting with / is a command; other text is a prompt', () => {
  expect(parseSlashCommand('/model openai/gpt-5 ', 'chat')).toEqual({ ok: true, command: { name: 'model', model: 'openai/gpt-5' } });
  expect(parseSlashCommand('/compact keep the API notes\nand the tests', 'chat')).toEqual({ ok: true, command: { name: 'compact', instructions: 'keep the API notes\nand the tests' } });
  expect(parseSlashCommand('/nope', 'chat')).toMatchObject({ ok: false, unknown: true, error: 'no command /nope (/help lists them)' });
  expect(parseSlashCommand('what does /model do?', 'chat')).toBeUndefined();
  expect(parseSlashCommand('/', 'chat')).toBeUndefined();
});

test('Tab completes a unique command, or as far as the candidates agree', () => {
  expect(completeSlash('/mo')).toBe('/model ');
  expect(completeSlash('/')).toBe('/');
  expect(completeSlash('/s')).toBe('/sessions ');
  expect(completeSlash('/t')).toBe('/t');
  expect(slashCandidates('/t').map((c) => c.name)).toEqual(['thinking', 'tree']);
  expect(completeSlash('/zzz')).toBe('/zzz');
  expect(completeSlash('/model x')).toBe('/model x');
  expect(completeSlash('hello')).toBe('hello');
  expect(completeSlash('/bu')).toBe('/budget ');
});

test("the chat's commands are the shared table's chat entries, and /help lists each", () => {
  expect(CHAT_COMMANDS.map((c) => c.name)).toEqual(commandsFor('chat').map((c) => c.name));
  expect(CHAT_COMMANDS.map((c) => c.name).sort()).toEqual(['budget', 'compact', 'export', 'fork', 'help', 'model', 'new', 'plan', 'quit', 'redo', 'resume', 'sessions', 'thinking', 'tree', 'undo']);
  for (const c of CHAT_COMMANDS) expect(helpText()).toContain(`/${c.name}`);
  // The EDN client's and ACP's own commands are not the chat's.
  expect(parseSlashCommand('/status', 'chat')).toMatchObject({ ok: false, unknown: true });
});
