import type { Client } from '@temporalio/client';

/** One call's worth; Temporal caps each answer, so a long range is read in several calls. */
const MAX_CALLS = 50;

/**
 * The due times of a schedule's spec in `[fromMs, toMs]`, oldest first, as Temporal itself computes
 * them (ListScheduleMatchingTimes): the ledger's due times are exactly the ones Temporal acts on,
 * cron, time zone and daylight saving included.
 */
export async function matchingTimes(client: Client, scheduleId: string, fromMs: number, toMs: number): Promise<number[]> {
  const times: number[] = [];
  // Temporal answers the times after `startTime`: one millisecond earlier, so that `fromMs` itself counts.
  let start = fromMs - 1;
  for (let call = 0; call < MAX_CALLS && start <= toMs; call++) {
    const reply = await client.workflowService.listScheduleMatchingTimes({
      namespace: client.options.namespace,
      scheduleId,
      startTime: timestamp(start),
      endTime: timestamp(toMs),
    });
    const page = (reply.startTime ?? []).map((ts) => secondsOf(ts.seconds) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6)).filter((t) => t > start && t <= toMs);
    if (page.length === 0) break;
    times.push(...page);
    start = page.at(-1)!;
  }
  return times;
}

function secondsOf(s: number | { toNumber(): number } | null | undefined): number {
  return s == null ? 0 : typeof s === 'number' ? s : s.toNumber();
}

function timestamp(ms: number) {
  // Long-compatible seconds: the generated type takes a number or a Long.
  return { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 } as never;
}

/**
 * The latest due times up to `toMs`, at least `atLeast` of them when the schedule has that many since
 * `sinceMs`: the window widens (×4 from an hour) until it holds enough or reaches `sinceMs` (`sinceStart`).
 */
export async function latestMatchingTimes(client: Client, scheduleId: string, sinceMs: number, toMs: number, atLeast: number): Promise<{ times: number[]; sinceStart: boolean }> {
  for (let span = 3_600_000; ; span *= 4) {
    const from = Math.max(sinceMs, toMs - span);
    const times = await matchingTimes(client, scheduleId, from, toMs);
    if (times.length >= atLeast || from === sinceMs) return { times: times.filter((t) => t > sinceMs), sinceStart: from === sinceMs };
  }
}
