import { completeSlash, helpText, parseSlash, planModeWanted, SLASH_COMMANDS, slashCandidates } from './slash-commands';

test('a command and its argument are parsed; other text is not a command', () => {
  expect(parseSlash('/model openai/gpt-5 ')).toEqual({ name: 'model', arg: 'openai/gpt-5', known: true });
  expect(parseSlash('/compact keep the API notes\nand the tests')).toEqual({ name: 'compact', arg: 'keep the API notes\nand the tests', known: true });
  expect(parseSlash('/nope')).toEqual({ name: 'nope', arg: '', known: false });
  expect(parseSlash('what does /model do?')).toBeUndefined();
  expect(parseSlash('/')).toBeUndefined();
});

test('Tab completes a unique prefix with a space, a shared one as far as it goes, nothing else', () => {
  expect(completeSlash('/mo')).toBe('/model ');
  expect(completeSlash('/')).toBe('/');
  expect(completeSlash('/s')).toBe('/sessions ');
  expect(completeSlash('/t')).toBe('/t');
  expect(slashCandidates('/t').map((c) => c.name)).toEqual(['thinking', 'tree']);
  expect(completeSlash('/zzz')).toBe('/zzz');
  expect(completeSlash('/model x')).toBe('/model x');
  expect(completeSlash('hello')).toBe('hello');
});

test('the help lists every command the issue asks for', () => {
  expect(SLASH_COMMANDS.map((c) => c.name).sort()).toEqual(['compact', 'export', 'fork', 'help', 'model', 'new', 'plan', 'quit', 'resume', 'sessions', 'thinking', 'tree']);
  for (const c of SLASH_COMMANDS) expect(helpText()).toContain(`/${c.name}`);
});

test('/plan switches plan mode over; /plan on|off sets it; another word is refused', () => {
  expect(planModeWanted('', false)).toBe(true);
  expect(planModeWanted('', true)).toBe(false);
  expect(planModeWanted('ON', false)).toBe(true);
  expect(planModeWanted('off', true)).toBe(false);
  expect(planModeWanted('maybe', false)).toBeUndefined();
});
