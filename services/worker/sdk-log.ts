import { format, inspect } from 'node:util';
import type { LogEntry } from '@temporalio/worker';
import { FailureType } from '../../contracts/failures';

/**
 * How the worker prints the Temporal SDK's own log lines. The SDK logs every activity that ends by
 * throwing as "Activity failed" with its whole error and stack: a person's Stop (the step leaves with
 * a CancelledFailure) and a polite stop of the worker (the step is handed back as infrastructure)
 * each drew a 30-line stack trace in the `npm start` terminal. Those two say in one line what
 * happened to the turn; a line without an error keeps its fields on that line (the SDK spread each
 * worker state change over five); one with an error is printed whole, stack included.
 */
export function createSdkLogFunction(write: (line: string) => void = (line) => process.stderr.write(line)) {
  return (entry: LogEntry): void => {
    const date = new Date(Number(entry.timestampNanos / 1_000_000n));
    const oneLine = entry.message === 'Activity failed' ? activityOutcome(entry.meta) : undefined;
    if (oneLine) return write(`${format(date)} [${oneLine.level}] ${oneLine.text}\n`);
    write(entry.meta === undefined ? `${format(date)} [${entry.level}] ${entry.message}\n` : `${format(date)} [${entry.level}] ${entry.message} ${metaText(entry.meta)}\n`);
  };
}

interface FailedActivityMeta {
  activityType?: string;
  workflowId?: string;
  attempt?: number;
  error?: { name?: string; message?: string; type?: string };
}

/** The one line for a stopped or handed-back activity, or undefined for a failure worth its details. */
function activityOutcome(meta: Record<string, unknown> | undefined): { level: string; text: string } | undefined {
  const m = (meta ?? {}) as FailedActivityMeta;
  const what = `${m.activityType ?? 'an activity'} of ${m.workflowId ?? 'a workflow'}`;
  if (m.error?.name === 'CancelledFailure') return { level: 'INFO', text: `${what} stopped: ${m.error.message ?? 'cancelled'}` };
  if (m.error?.name === 'ApplicationFailure' && m.error.type === FailureType.INFRA_UNAVAILABLE) {
    return { level: 'WARN', text: `${what} handed back (attempt ${m.attempt ?? 1}): ${m.error.message ?? 'strand infrastructure unavailable'}` };
  }
  return undefined;
}

/** The fields on one line, unless an error among them deserves its stack. */
function metaText(meta: Record<string, unknown>): string {
  const hasError = Object.values(meta).some((v) => v instanceof Error);
  return hasError ? format(meta) : inspect(meta, { breakLength: Infinity, depth: 4 });
}
