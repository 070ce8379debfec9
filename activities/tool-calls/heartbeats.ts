import type { Context } from '@temporalio/activity';

/**
 * Runs `body` with the activity heartbeating on a ticker from its first line to its last: one
 * heartbeat every `everyMs` until `body` settles.
 *
 * Temporal counts the heartbeat timeout from the attempt's start, then from the last heartbeat that
 * reached it, whatever the activity is awaiting. A tool's slow parts are not only the tool itself:
 * the ledger and argument reads before it, the workspace diff of its checkpoint after it (seconds
 * for a project of a few thousand files on a busy machine), the ledger write and the result's
 * publication. Heartbeating only around the tool let a live worker's call time out and be retried
 * as "interrupted" (bench/README.md, the jobs bench); heartbeating throughout means a missed
 * heartbeat is a dead worker or a dead event loop, never a slow await.
 *
 * No heartbeat at once: the timeout counts from the attempt's start anyway, and the SDK sends an
 * activity's first heartbeat to the server straight away (later ones are throttled to one per 0.5 s),
 * so a beat on the first line cost every activity, even one done in 50 ms, a RecordActivityTaskHeartbeat
 * (a write of the workflow's state on the Temporal server): three per tool turn. The crash watch reads
 * a heartbeat that never came as one that stopped (crash-watch/crash-watcher.ts), and an activity
 * longer than `everyMs` beats as before.
 */
export async function whileHeartbeating<T>(ctx: Context, details: () => unknown, everyMs: number, body: () => Promise<T>): Promise<T> {
  const ticker = setInterval(() => ctx.heartbeat(details()), everyMs);
  try {
    return await body();
  } finally {
    clearInterval(ticker);
  }
}
