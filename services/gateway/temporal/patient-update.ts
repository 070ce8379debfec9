import { ErrorCode, StrandError } from '../../../contracts/errors';
import { isDeadlineExceeded, isWorkflowTaskFailure, translateFailure } from './translate-failure';

/** How long to wait before sending a command again that was refused because the workflow task failed. */
const TASK_RETRY_DELAYS_MS = [250, 750, 1_500, 3_000];

/**
 * A command is sent under one update id, each attempt within `attemptMs`, and sent again under that id
 * (the server applies it once, and answers a retry with the first one's outcome) until `patienceMs`
 * have passed. Sized from `npm run bench:load` (docs/configuration.md): on a busy machine with a worker
 * killed an update took up to a few seconds; a command that needs longer than a minute is answered
 * UNAVAILABLE with its request id, to send again for its outcome. Session commands and hook deliveries.
 */
export const COMMAND_PATIENCE = { attemptMs: 10_000, patienceMs: 60_000 } as const;

/** sendPatiently with COMMAND_PATIENCE, each attempt under `temporal`'s deadline (TemporalLink.withDeadline). */
export function sendCommand<T>(temporal: Pick<Patience, 'withDeadline'>, updateId: string, call: () => Promise<T>): Promise<T> {
  return sendPatiently(updateId, call, { ...COMMAND_PATIENCE, withDeadline: (ms, fn) => temporal.withDeadline(ms, fn) });
}

export interface Patience {
  /** Each attempt runs within this (the gRPC deadline). */
  attemptMs: number;
  /** Attempts go on until this much time has passed since the first. */
  patienceMs: number;
  /** Runs an attempt with its deadline (TemporalLink.withDeadline). */
  withDeadline: <T>(ms: number, fn: () => Promise<T>) => Promise<T>;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  taskRetryDelaysMs?: readonly number[];
}

/**
 * Sends one command (a workflow update under a fixed update id) until it has an answer or the
 * patience is spent. Two refusals are sent again, because the same update id is applied at most once
 * (the server answers a repeat with the first one's outcome):
 * - the attempt ran out of its deadline (the server may still have taken it: the repeat learns its outcome);
 * - the server refused it because the workflow's last task failed (a worker crash, an SDK fault under
 *   load): Temporal retries that task, usually within a second or two, and the update was never accepted.
 * Both were separate loops before, and the second gave up after 2.5 s: a busy machine with a worker
 * killed answered a rename 503 after 2.8 s (`npm run bench:load`). Giving up says what is known.
 */
export async function sendPatiently<T>(updateId: string, call: () => Promise<T>, p: Patience): Promise<T> {
  const now = p.now ?? Date.now;
  const sleep = p.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const delays = p.taskRetryDelaysMs ?? TASK_RETRY_DELAYS_MS;
  const giveUpAt = now() + p.patienceMs;
  for (let refusals = 0; ; ) {
    try {
      return await p.withDeadline(Math.min(p.attemptMs, Math.max(1, giveUpAt - now())), call);
    } catch (err) {
      const taskFailed = isWorkflowTaskFailure(err);
      if (!taskFailed && !isDeadlineExceeded(err)) throw err;
      if (now() >= giveUpAt) throw givenUp(err, updateId, p.patienceMs, taskFailed);
      if (taskFailed) await sleep(Math.min(delays[Math.min(refusals++, delays.length - 1)]!, Math.max(0, giveUpAt - now())));
    }
  }
}

function givenUp(err: unknown, updateId: string, patienceMs: number, taskFailed: boolean): StrandError {
  const s = patienceMs / 1000;
  if (taskFailed) {
    // Never accepted: sending it again is safe, and it is applied once if it was.
    const why = translateFailure(err);
    return new StrandError(ErrorCode.UNAVAILABLE, `${why instanceof Error ? why.message : String(why)}; still so after ${s} s: send it again with request id ${updateId} (it is applied once)`, { request_id: updateId }, { cause: err });
  }
  return new StrandError(
    ErrorCode.UNAVAILABLE,
    `the session's workflow did not answer within ${s} s; the command may still be applied: send it again with request id ${updateId} to learn its outcome (it is applied once)`,
    { request_id: updateId },
    { cause: err },
  );
}
