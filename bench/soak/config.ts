import path from 'node:path';
import { REPO_ROOT } from '../../infra/stack/stack-config';
import { intFrom } from '../env-int';

/** The three client protocols a soak session can speak. */
export const PROTOCOLS = ['sse', 'ws', 'edn'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** What one `npm run soak` does, from the environment (bench/README.md, "soak"). */
export interface SoakConfig {
  sessions: number;
  /** The measured run, after the warm-up. */
  durationS: number;
  /** Every session runs turns this long before the start RSS is taken and the counters begin. */
  warmupS: number;
  /** Between two RSS samples (the chart's points). */
  sampleS: number;
  /** Pause the scripted provider makes before each streamed delta. */
  deltaDelayMs: number;
  /** Words of the answer after the tool call. */
  answerWords: number;
  /** The largest RSS growth (start → end) allowed for each of our processes. */
  rssBoundMb: number;
  /**
   * Pause between a turn's end and the session's next prompt, drawn evenly from [min, max] ms: a person
   * reads the answer before typing the next prompt. 0/0 types ahead (saturation: see bench/README.md).
   */
  thinkMs: { min: number; max: number };
  /** A turn that has not ended within this counts as an error (and its session stops). */
  turnTimeoutMs: number;
  resultsDir: string;
}

/**
 * SOAK_SESSIONS (50), SOAK_DURATION_S (600), SOAK_WARMUP_S (30), SOAK_SAMPLE_S (10),
 * SOAK_DELTA_DELAY_MS (20), SOAK_ANSWER_WORDS (40), SOAK_RSS_BOUND_MB (100), SOAK_RESULTS_DIR
 * (bench/results), SOAK_THINK_MIN_S / SOAK_THINK_MAX_S (10 / 30). SOAK_QUICK=1 is the development mode: 6 sessions, 45 s after a 10 s warm-up
 * (explicit values still win).
 */
export function soakConfigFromEnv(env: NodeJS.ProcessEnv = process.env): SoakConfig {
  const quick = env.SOAK_QUICK === '1' || env.SOAK_QUICK === 'true';
  return {
    sessions: intFrom(env, 'SOAK_SESSIONS', quick ? 6 : 50, 1),
    durationS: intFrom(env, 'SOAK_DURATION_S', quick ? 45 : 600, 1),
    warmupS: intFrom(env, 'SOAK_WARMUP_S', quick ? 10 : 30),
    sampleS: intFrom(env, 'SOAK_SAMPLE_S', quick ? 5 : 10, 1),
    deltaDelayMs: intFrom(env, 'SOAK_DELTA_DELAY_MS', 20),
    answerWords: intFrom(env, 'SOAK_ANSWER_WORDS', 40, 1),
    rssBoundMb: intFrom(env, 'SOAK_RSS_BOUND_MB', 100, 1),
    thinkMs: thinkRange(intFrom(env, 'SOAK_THINK_MIN_S', quick ? 1 : 10), intFrom(env, 'SOAK_THINK_MAX_S', quick ? 3 : 30)),
    turnTimeoutMs: 120_000,
    resultsDir: path.resolve(env.SOAK_RESULTS_DIR?.trim() || path.join(REPO_ROOT, 'bench', 'results')),
  };
}

/** Session i's protocol: round-robin, so 50 sessions are 17 SSE, 17 WebSocket and 16 EDN. */
export const protocolOf = (i: number): Protocol => PROTOCOLS[i % PROTOCOLS.length]!;

function thinkRange(minS: number, maxS: number): { min: number; max: number } {
  if (maxS < minS) throw new Error(`SOAK_THINK_MAX_S (${maxS}) is below SOAK_THINK_MIN_S (${minS})`);
  return { min: minS * 1000, max: maxS * 1000 };
}
