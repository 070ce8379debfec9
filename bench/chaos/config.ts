import path from 'node:path';
import { REPO_ROOT, type ServiceCode } from '../../infra/stack/stack-config';
import { pickScenarios, type Scenario } from './scenarios';
import { intFrom } from '../env-int';

/** What one `npm run chaos` does, from the environment (bench/README.md, "chaos"). */
export interface ChaosConfig {
  trials: number;
  scenarios: Scenario[];
  /** How long Temporal or NATS stays down in an outage scenario. */
  outageMs: number;
  /** Between a kill and the restart: `npm start`'s supervisor waits 0.5 s before its first restart. */
  restartDelayMs: number;
  seed: number;
  /** Words of the long answer, and the pause before each streamed frame. */
  words: number;
  frameDelayMs: number;
  /** How many half-second ticks the shell command of a tool trial prints (its run time × 2). */
  toolTicks: number;
  /** How long a turn may take to finish once its fault is over. */
  finishTimeoutMs: number;
  resultsDir: string;
  quick: boolean;
  /** The services' code: built (dist/services, what `npm start` runs) or from source (tsx). */
  code: ServiceCode;
}

/**
 * CHAOS_TRIALS (default 20 per scenario), CHAOS_SCENARIOS (scenarios.ts), CHAOS_QUICK=1 (2 trials
 * and 10 s outages, for development; explicit values still win), CHAOS_OUTAGE_S (30),
 * CHAOS_RESTART_DELAY_MS (500), CHAOS_SEED (random points; default: the clock), CHAOS_RESULTS_DIR
 * (bench/results), CHAOS_FROM_SOURCE=1 (the services through tsx instead of the build `npm start` runs).
 */
export function chaosConfigFromEnv(env: NodeJS.ProcessEnv = process.env): ChaosConfig {
  const quick = env.CHAOS_QUICK === '1' || env.CHAOS_QUICK === 'true';
  return {
    trials: intFrom(env, 'CHAOS_TRIALS', quick ? 2 : 20, 1),
    scenarios: pickScenarios(env.CHAOS_SCENARIOS),
    outageMs: intFrom(env, 'CHAOS_OUTAGE_S', quick ? 10 : 30) * 1000,
    restartDelayMs: intFrom(env, 'CHAOS_RESTART_DELAY_MS', 500),
    seed: intFrom(env, 'CHAOS_SEED', Date.now() % 2 ** 31),
    words: 80,
    frameDelayMs: 50,
    toolTicks: 8,
    finishTimeoutMs: 180_000,
    resultsDir: path.resolve(env.CHAOS_RESULTS_DIR?.trim() || path.join(REPO_ROOT, 'bench', 'results')),
    quick,
    code: /^(1|true|yes)$/i.test(env.CHAOS_FROM_SOURCE?.trim() ?? '') ? 'source' : 'built',
  };
}

export { seededRandom } from '../../test/harness/seeded-random';
