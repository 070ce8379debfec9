import fs from 'node:fs';
import path from 'node:path';

/**
 * What `npm test` (infra/run-tests.ts) counts and prints. Each step is recorded as passed or failed,
 * except the jest projects, whose tests count one by one; whatever failed is listed before the last
 * line, which is always `N passed, N failed` (scripts and people read that line), and the exit code is
 * non-zero when anything failed.
 */

/** The part of jest's `--json` report the tally reads. */
export interface JestReport {
  numPassedTests: number;
  numFailedTests: number;
  testResults: { name: string; status: string; message?: string; assertionResults: { status: string }[] }[];
}

/**
 * The first line of what jest said about a file that did not run (a hook that timed out, a throw in
 * afterAll, a load error), so the summary a CI log keeps says why, not only which file.
 */
export function firstReason(message: string | undefined): string {
  // eslint-disable-next-line no-control-regex
  const plain = (message ?? '').replace(/\x1b\[[0-9;]*m/g, '');
  const line = plain.split('\n').map((l) => l.trim()).find((l) => l !== '' && !l.startsWith('●'));
  if (line === undefined) return 'jest gave no reason';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** Jest's `--json --outputFile` report, or undefined when jest wrote none (it failed before running anything). */
export function readJestReport(file: string): JestReport | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as JestReport;
  } catch {
    return undefined;
  }
}

export class TestTally {
  passed = 0;
  failed = 0;
  readonly failures: string[] = [];

  constructor(private readonly print: (line: string) => void = console.log) {}

  /** A line of progress (what a step is about to run). */
  note(line: string): void {
    this.print(line);
  }

  /** One step that passed or failed as a whole (bootstrap, lint, type check, the leftover check). */
  record(name: string, ok: boolean): void {
    if (ok) this.passed++;
    else this.fail(name);
    this.print(`[test] ${ok ? 'PASS' : 'FAIL'} ${name}`);
  }

  /**
   * A jest project's report: each test counts. A file that could not run at all (a syntax error, a
   * throw while loading, a failing beforeAll) has no failed test to show for it, so it counts once.
   * No report at all (jest itself failed) counts once too.
   */
  addJest(project: string, report: JestReport | undefined, root: string): void {
    if (report === undefined) {
      this.record(`jest ${project} (no results: jest itself failed)`, false);
      return;
    }
    this.passed += report.numPassedTests;
    this.failed += report.numFailedTests;
    for (const file of report.testResults) {
      if (file.status === 'failed' && !file.assertionResults.some((a) => a.status === 'failed')) this.fail(`${path.relative(root, file.name)} did not run (${firstReason(file.message)})`);
    }
    if (report.numFailedTests > 0) this.failures.push(`${report.numFailedTests} failing test(s) in jest ${project}`);
  }

  /** Lists the failures, then prints the summary line last; returns the exit code. */
  finish(extraLines: string[] = []): number {
    if (this.failures.length > 0) this.print(`[test] failures:\n  - ${this.failures.join('\n  - ')}`);
    for (const line of extraLines) this.print(line);
    this.print(this.summaryLine());
    return this.exitCode();
  }

  summaryLine(): string {
    return `${this.passed} passed, ${this.failed} failed`;
  }

  exitCode(): number {
    return this.failed === 0 ? 0 : 1;
  }

  private fail(name: string): void {
    this.failed++;
    this.failures.push(name);
  }
}
