import type { SoakMetrics } from './soak-metrics';
import type { SoakSession } from './turn-result';

/** After this many failed turns in a row a session stops: its connection or session is beyond use. */
const GIVE_UP_AFTER = 3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One session's life in the soak: prompt, wait for the turn's end, prompt again at once, as a client
 * typing ahead does, until `stopped()` says so. A failed turn is reported and, after a second's pause,
 * followed by the next; resolves with how many turns were sent.
 */
export async function runSessionLoop(session: SoakSession, metrics: SoakMetrics, stopped: () => boolean, turnTimeoutMs: number): Promise<number> {
  let turns = 0;
  let failedInRow = 0;
  while (!stopped()) {
    const result = await session.turn(++turns, turnTimeoutMs);
    metrics.turn(result);
    if (result.outcome === 'done' && result.error === undefined) {
      failedInRow = 0;
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
