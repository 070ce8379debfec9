import { budgetText, budgetWanted, completeSlash, helpText, parseSlash, planModeWanted, SLASH_COMMANDS, slashCandidates } from './slash-commands';

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
  expect(SLASH_COMMANDS.map((c) => c.name).sort()).toEqual(['budget', 'compact', 'export', 'fork', 'help', 'model', 'new', 'plan', 'quit', 'redo', 'resume', 'sessions', 'thinking', 'tree', 'undo']);
  for (const c of SLASH_COMMANDS) expect(helpText()).toContain(`/${c.name}`);
});

test('/plan switches plan mode over; /plan on|off sets it; another word is refused', () => {
  expect(planModeWanted('', false)).toBe(true);
  expect(planModeWanted('', true)).toBe(false);
  expect(planModeWanted('ON', false)).toBe(true);
  expect(planModeWanted('off', true)).toBe(false);
  expect(planModeWanted('maybe', false)).toBeUndefined();
});

test('/budget: a dollar cap, a token cap, off, or nothing to show them; anything else is refused', () => {
  expect(budgetWanted('')).toBe('show');
  expect(budgetWanted('5')).toEqual({ max_cost_usd: 5 });
  expect(budgetWanted('$2.50')).toEqual({ max_cost_usd: 2.5 });
  expect(budgetWanted('usd 1')).toEqual({ max_cost_usd: 1 });
  expect(budgetWanted('tokens 200000')).toEqual({ max_tokens: 200000 });
  expect(budgetWanted('tokens off')).toEqual({ max_tokens: null });
  expect(budgetWanted('off')).toEqual({ max_cost_usd: null, max_tokens: null });
  expect(budgetWanted('tokens 1.5')).toBeUndefined();
  expect(budgetWanted('lots')).toBeUndefined();
  expect(budgetWanted('-3')).toBeUndefined();
  expect(budgetText({ max_cost_usd: 5, max_tokens: 1000 })).toBe('$5 · 1000 tokens');
  expect(budgetText(undefined)).toBe('none');
  expect(completeSlash('/bu')).toBe('/budget ');
});
