import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { commandStep, jestStep, runSteps, TEST_STEPS } from './run-tests';
import { TestTally } from './test-support/test-tally';

/**
 * `npm test` (docs/local-stack.md): its steps and their order, and what it counts and prints. The jest
 * cases run the real jest, as npm test runs it, on a throwaway project of plain JS test files (one
 * that passes, one with a failing test, one that cannot load); no step of the real suite runs here.
 */
let dir: string;
let config: string;

const files: Record<string, string> = {
  'passes.case.js': "test('one', () => expect(1).toBe(1));\ntest('two', () => expect(2).toBe(2));\n",
  'fails.case.js': "test('ok', () => expect(1).toBe(1));\ntest('wrong', () => expect(1).toBe(2));\n",
  'cannot-load.case.js': "throw new Error('this file does not load');\n",
};

/** A jest config naming one project `fixture` over the files given (all of `files` when left out). */
function fixtureConfig(name: string, only?: string[]): string {
  const file = path.join(dir, `${name}.config.json`);
  const testMatch = (only ?? Object.keys(files)).map((f) => `<rootDir>/${f}`);
  fs.writeFileSync(file, JSON.stringify({ projects: [{ displayName: 'fixture', rootDir: dir, testMatch, transform: {}, testEnvironment: 'node' }] }));
  return file;
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-run-tests-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  config = fixtureConfig('all');
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Runs the steps as npm test does, keeping what it prints. */
async function runQuietly(steps: Parameters<typeof runSteps>[0]): Promise<{ code: number; lines: string[]; tally: TestTally }> {
  const lines: string[] = [];
  const tally = new TestTally((line) => lines.push(...line.split('\n')));
  const code = await runSteps(steps, tally);
  return { code, lines, tally };
}

test('npm test runs bootstrap, lint, type check, the unused-code check, the unit tests, then the process-starting tests, then looks for leftovers', () => {
  expect(TEST_STEPS.map((s) => s.name)).toEqual(['bootstrap', 'lint', 'typecheck', 'unused', 'unit', 'integration', 'integration (alone)', 'leftovers']);
});

test('a failing test counts as failed, a file that could not run counts once, passing tests count one by one; the last line says so and the exit code is 1', async () => {
  const { code, lines, tally } = await runQuietly([jestStep('fixture', ['--config', config], 'ignore')]);
  // passes.case.js 2 + fails.case.js 1 passed; 1 failing test + 1 file that did not run.
  expect(lines.at(-1)).toBe('3 passed, 2 failed');
  expect(lines.at(-1)).toMatch(/^\d+ passed, \d+ failed$/);
  expect(code).toBe(1);
  expect(tally.failures).toEqual([path.relative(path.resolve(__dirname, '..'), path.join(dir, 'cannot-load.case.js')) + ' did not run (this file does not load)', '1 failing test(s) in jest fixture']);
  expect(lines).toContain('  - 1 failing test(s) in jest fixture');
}, 60_000);

test('only passing tests and steps: `N passed, 0 failed` and exit code 0', async () => {
  const onlyPassing = fixtureConfig('passing', ['passes.case.js']);
  const { code, lines } = await runQuietly([commandStep('true', 'a command that succeeds', process.execPath, ['-e', '']), jestStep('fixture', ['--config', onlyPassing], 'ignore')]);
  expect(lines.at(-1)).toBe('3 passed, 0 failed');
  expect(lines.some((l) => l.startsWith('[test] failures'))).toBe(false);
  expect(code).toBe(0);
}, 60_000);

test('a failing command, a jest that writes no report and a step that throws each count once as failed; later steps still run', async () => {
  const { code, lines, tally } = await runQuietly([
    commandStep('false', 'a command that fails', process.execPath, ['-e', 'process.exit(3)']),
    jestStep('fixture', ['--config', path.join(dir, 'no-such-config.json')], 'ignore'),
    { name: 'crashing', run: () => Promise.reject(new Error('boom')) },
    jestStep('fixture', ['--config', config], 'ignore'),
  ]);
  expect(tally.failures.slice(0, 3)).toEqual(['a command that fails', 'jest fixture (no results: jest itself failed)', 'crashing (crashed: boom)']);
  expect(lines.at(-1)).toBe('3 passed, 5 failed');
  expect(code).toBe(1);
}, 60_000);
