import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bootstrapAll } from './bootstrap/main';
import { findMarkedProcesses } from './test-support/orphans';

/**
 * `npm test`: bootstrap, lint, type check, unit tests, then the tests that start real processes
 * (one file at a time), an orphan check, and one summary line `N passed, N failed`.
 * Every process a test starts inherits STRAND_TEST_RUN, which is how leftovers are found.
 */
const root = path.resolve(__dirname, '..');
const runId = randomUUID();
let passed = 0;
let failed = 0;
const failures: string[] = [];

function record(name: string, ok: boolean): void {
  if (ok) passed++;
  else {
    failed++;
    failures.push(name);
  }
  console.log(`[test] ${ok ? 'PASS' : 'FAIL'} ${name}`);
}

function run(name: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): boolean {
  console.log(`[test] ${name}: ${command} ${args.join(' ')}`);
  const res = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  return res.status === 0;
}

interface JestSummary {
  numPassedTests: number;
  numFailedTests: number;
  numRuntimeErrorTestSuites: number;
  testResults: { name: string; status: string; message: string; assertionResults: { status: string }[] }[];
}

function jest(project: string, extra: string[]): void {
  const out = path.join(os.tmpdir(), `strand-jest-${runId}-${project}.json`);
  const bin = path.join(root, 'node_modules', '.bin', 'jest');
  run(`jest ${project}`, bin, ['--ci', '--selectProjects', project, '--json', `--outputFile=${out}`, ...extra], {
    STRAND_TEST_RUN: runId,
  });
  let summary: JestSummary;
  try {
    summary = JSON.parse(fs.readFileSync(out, 'utf8')) as JestSummary;
  } catch {
    record(`jest ${project} (no results: jest itself failed)`, false);
    return;
  } finally {
    fs.rmSync(out, { force: true });
  }
  passed += summary.numPassedTests;
  failed += summary.numFailedTests;
  // A file that could not run at all (syntax error, failing beforeAll) counts once.
  for (const file of summary.testResults) {
    if (file.status === 'failed' && !file.assertionResults.some((a) => a.status === 'failed')) {
      failed++;
      failures.push(`${path.relative(root, file.name)} did not run`);
    }
  }
  if (summary.numFailedTests > 0) failures.push(`${summary.numFailedTests} failing test(s) in jest ${project}`);
}

async function main(): Promise<void> {
  const started = Date.now();
  try {
    await bootstrapAll();
    record('bootstrap', true);
  } catch (err) {
    console.error(`[test] bootstrap failed: ${(err as Error).message}`);
    record('bootstrap', false);
  }
  record('lint (eslint)', run('lint', path.join(root, 'node_modules/.bin/eslint'), ['.', '--max-warnings=0']));
  record('typecheck (tsc --noEmit)', run('typecheck', path.join(root, 'node_modules/.bin/tsc'), ['--noEmit', '-p', '.']));
  jest('unit', ['--maxWorkers=2']);
  jest('integration', ['--runInBand', '--testTimeout=180000']);

  const leftovers = findMarkedProcesses('STRAND_TEST_RUN', runId);
  for (const p of leftovers) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
  record(
    leftovers.length === 0 ? 'no process left running' : `processes left running: ${leftovers.map((p) => `${p.pid} ${p.command}`).join('; ')}`,
    leftovers.length === 0,
  );

  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  if (failures.length > 0) console.log(`[test] failures:\n  - ${failures.join('\n  - ')}`);
  console.log(`[test] finished in ${minutes} min`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed === 0 ? 0 : 1;
}

main().catch((err: unknown) => {
  console.error(err);
  console.log(`${passed} passed, ${failed + 1} failed`);
  process.exit(1);
});
