import { spawnSync, type StdioOptions } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bootstrapAll } from './bootstrap/main';
import { findMarkedProcesses } from './test-support/orphans';
import { readJestReport, TestTally } from './test-support/test-tally';

/**
 * `npm test`: bootstrap, lint, type check, the unused-code check, unit tests, then the tests that start real processes
 * (two files at a time), an orphan check, and one summary line `N passed, N failed` (test-tally.ts).
 * Every process a test starts inherits STRAND_TEST_RUN, which is how leftovers are found.
 */
const root = path.resolve(__dirname, '..');
const runId = randomUUID();

/** One step of `npm test`: it records its outcome in the tally. */
export interface TestStep {
  name: string;
  run(tally: TestTally): void | Promise<void>;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}, stdio: StdioOptions = 'inherit'): boolean {
  return spawnSync(command, args, { cwd: root, stdio, env: { ...process.env, ...env } }).status === 0;
}

/** A step that passes when `command` exits 0. */
export function commandStep(name: string, label: string, command: string, args: string[]): TestStep {
  return {
    name,
    run: (tally) => {
      tally.note(`[test] ${name}: ${command} ${args.join(' ')}`);
      tally.record(label, run(command, args));
    },
  };
}

/** A jest project, every test of it counted (`extra`: more jest arguments; `stdio` 'ignore' for a quiet run). */
export function jestStep(project: string, extra: string[], stdio: StdioOptions = 'inherit'): TestStep {
  return {
    name: project,
    run: (tally) => {
      const out = path.join(os.tmpdir(), `strand-jest-${runId}-${project}.json`);
      const args = ['--ci', '--selectProjects', project, '--json', `--outputFile=${out}`, ...extra];
      tally.note(`[test] jest ${project}: jest ${args.join(' ')}`);
      run(path.join(root, 'node_modules', '.bin', 'jest'), args, { STRAND_TEST_RUN: runId }, stdio);
      try {
        tally.addJest(project, readJestReport(out), root);
      } finally {
        fs.rmSync(out, { force: true });
      }
    },
  };
}

const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);

/**
 * Integration files that must not run beside another: stack-built.test.ts makes the shared build in
 * dist/services stale on purpose and expects its own `strand up` to rebuild it, which an `npm start`
 * of a file running meanwhile (stack-signals, loopback-binds, offline-start) would do first. The
 * three-node NATS cluster tests bound how long a store or gateway takes to recover from a node's
 * death or freeze; beside another file's stack on two cores the gateway's took 43.7 s once (against
 * 15 s), a load figure the bench's cluster chaos reports, not these tests' pass mark.
 * polite-stop.test.ts: in two of three CI runs where it ran beside stack-signals.test.ts its short
 * command's shell was ended by a SIGTERM nothing in its own stack sent (it has not failed beside other
 * files; not reproduced here: 3 runs side by side under strace, no kill crossed between the two trees).
 * Until the sender is found it runs alone; the likely senders, late kills by pid, were made safe.
 */
const RUN_ALONE: readonly string[] = [
  'test/e2e/polite-stop.test.ts',
  'test/e2e/stack-built.test.ts',
  'test/gateway/events-cluster-node-kill.test.ts',
  'test/gateway/events-cluster-silent-node.test.ts',
  'test/store/jetstream-cluster-election-read.test.ts',
  'test/store/jetstream-cluster-leader.test.ts',
];
const asPattern = (file: string) => `/${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;

/** What `npm test` runs, in this order. */
export const TEST_STEPS: readonly TestStep[] = [
  {
    name: 'bootstrap',
    run: async (tally) => {
      try {
        await bootstrapAll();
        // Test-only system packages (Chromium for the web page's tests).
        if (!run('bash', [path.join(root, 'infra', 'ensure-test-deps.sh')])) throw new Error('infra/ensure-test-deps.sh failed');
        tally.record('bootstrap', true);
      } catch (err) {
        console.error(`[test] bootstrap failed: ${(err as Error).message}`);
        tally.record('bootstrap', false);
      }
    },
  },
  commandStep('lint', 'lint (eslint)', bin('eslint'), ['.', '--max-warnings=0']),
  {
    // The Node program, then the web page's (DOM types and Preact's JSX: clients/web/tsconfig.json).
    name: 'typecheck',
    run: async (tally) => {
      await commandStep('typecheck', 'typecheck (tsc --noEmit)', bin('tsc'), ['--noEmit', '-p', '.']).run(tally);
      await commandStep('typecheck', 'typecheck of the web page (tsc --noEmit -p clients/web)', bin('tsc'), ['--noEmit', '-p', 'clients/web']).run(tally);
    },
  },
  // Unused files, exports and dependencies (knip.jsonc: entry points, and the allowlist with its reasons).
  commandStep('unused', 'unused code (knip)', bin('knip'), ['--no-progress']),
  jestStep('unit', ['--maxWorkers=2']),
  // Two files at a time, even on 2 cores: most of a file's time is waiting (stack starts, streamed answers,
  // grace times, timers), not computing. Eight integration files took 471, 551 and 460 s one at a time and
  // 309, 284 and 318 s two at a time (runs alternated, on a 2-core machine with a load average of 18-33 from
  // other work). Three at a time took 175 s once, and once hung the property test past its 400 s timeout.
  jestStep('integration', ['--maxWorkers=2', '--testTimeout=180000', `--testPathIgnorePatterns=${RUN_ALONE.map(asPattern).join('|')}`]),
  { ...jestStep('integration', ['--runInBand', '--testTimeout=180000', ...RUN_ALONE.map(asPattern)]), name: 'integration (alone)' },
  {
    name: 'leftovers',
    run: (tally) => {
      const leftovers = findMarkedProcesses('STRAND_TEST_RUN', runId);
      for (const p of leftovers) {
        try {
          process.kill(p.pid, 'SIGKILL');
        } catch {
          // Gone meanwhile.
        }
      }
      const named = leftovers.map((p) => `${p.pid} ${p.command}`).join('; ');
      tally.record(leftovers.length === 0 ? 'no process left running' : `processes left running: ${named}`, leftovers.length === 0);
    },
  },
];

/** Runs `steps` in order (a step that throws counts as failed, and the rest still run); resolves with the exit code. */
export async function runSteps(steps: readonly TestStep[], tally: TestTally): Promise<number> {
  const started = Date.now();
  for (const step of steps) {
    try {
      await step.run(tally);
    } catch (err) {
      tally.record(`${step.name} (crashed: ${(err as Error).message})`, false);
    }
  }
  return tally.finish([`[test] finished in ${((Date.now() - started) / 60_000).toFixed(1)} min`]);
}

if (require.main === module) {
  void runSteps(TEST_STEPS, new TestTally()).then((code) => {
    process.exitCode = code;
  });
}
