import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { LogEntry } from '@temporalio/worker';
import { FailureType } from '../../contracts/failures';
import { createSdkLogFunction } from './sdk-log';

const at = BigInt(Date.UTC(2026, 10, 28, 21, 0, 0)) * 1_000_000n;
const failed = (error: Error): LogEntry => ({
  level: 'WARN',
  timestampNanos: at,
  message: 'Activity failed',
  meta: { activityType: 'streamModelStep', workflowId: 'session:s1:turn:1', attempt: 1, error },
});

function printed(entry: LogEntry): string[] {
  const lines: string[] = [];
  createSdkLogFunction((l) => lines.push(l))(entry);
  return lines.join('').trimEnd().split('\n');
}

describe('the worker prints the SDK log', () => {
  test("a person's Stop is one line, not a stack trace", () => {
    const lines = printed(failed(new CancelledFailure('the user aborted the turn')));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/\[INFO\] streamModelStep of session:s1:turn:1 stopped: the user aborted the turn$/);
  });

  test('a step handed back by a polite stop is one line that says so', () => {
    const lines = printed(failed(ApplicationFailure.create({ message: 'the worker running model step 0 of t1 was stopped (a restart or a deploy)', type: FailureType.INFRA_UNAVAILABLE })));
    expect(lines).toEqual([expect.stringMatching(/\[WARN\] streamModelStep of session:s1:turn:1 handed back \(attempt 1\): the worker running model step 0 of t1 was stopped/)]);
  });

  test('any other failure keeps its details and stack', () => {
    const lines = printed(failed(new Error('a bug in our code')));
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.join('\n')).toMatch(/Activity failed[\s\S]*a bug in our code[\s\S]*at /);
  });

  test('a line without an error keeps its fields on its own line', () => {
    const lines = printed({ level: 'INFO', timestampNanos: at, message: 'Worker state changed', meta: { sdkComponent: 'worker', taskQueue: 'strand-agent', state: 'DRAINING' } });
    expect(lines).toEqual([expect.stringMatching(/\[INFO\] Worker state changed \{ sdkComponent: 'worker', taskQueue: 'strand-agent', state: 'DRAINING' \}$/)]);
  });
});
