import type { SoakMetrics } from './soak-metrics';
import type { SoakSession } from './turn-result';

/** After this many failed turns in a row a session stops: its connection or session is beyond use. */
const GIVE_UP_AFTER = 3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One session's life in the soak: prompt, wait for the turn's end, think (a pause drawn from
 * `thinkMs`; none: type ahead), prompt again, until `stopped()` says so. A failed turn is reported and,
 * after a second's pause, followed by the next; resolves with how many turns were sent.
 */
export async function runSessionLoop(
  session: SoakSession,
  metrics: SoakMetrics,
  stopped: () => boolean,
  turnTimeoutMs: number,
  thinkMs: { min: number; max: number } = { min: 0, max: 0 },
): Promise<number> {
  let turns = 0;
  let failedInRow = 0;
  while (!stopped()) {
    const result = await session.turn(++turns, turnTimeoutMs);
    metrics.turn(result);
    if (result.outcome === 'done' && result.error === undefined) {
      failedInRow = 0;
      const think = thinkMs.min + Math.random() * (thinkMs.max - thinkMs.min);
      if (think > 0) await sleepUnless(think, stopped);
      continue;
    }
    if (++failedInRow >= GIVE_UP_AFTER) {
      metrics.error(session.protocol, session.sessionId, `the session stopped after ${GIVE_UP_AFTER} failed turns in a row`);
      break;
    }
    await sleep(1_000);
  }
  return turns;
}

/** Sleeps `ms`, waking early (within 250 ms) once the run stops, so the soak ends on time. */
async function sleepUnless(ms: number, stopped: () => boolean): Promise<void> {
  const until = Date.now() + ms;
  while (!stopped() && Date.now() < until) await sleep(Math.min(250, until - Date.now()));
}
