import path from 'node:path';
import type { InstanceCounts } from './instances';

/** The repository root (services are started from here). */
export const REPO_ROOT = path.resolve(__dirname, '../..');

/** Ports and places of a local stack. Port 0 means "pick a free one". */
export interface StackConfig {
  dataDir: string;
  host: string;
  /** `edn` is the gateway's EDN TCP port; left out, a free one is picked like for port 0. */
  ports: { temporal: number; temporalUi: number; nats: number; gateway: number; edn?: number };
  /** Serve the Temporal Web UI (tests turn it off). */
  ui: boolean;
  /** Extra environment for our three services (e.g. STRAND_SCRIPTED_DELTA_DELAY_MS). */
  serviceEnv: NodeJS.ProcessEnv;
  /** How many stores, workers and gateways to run (one each when left out); see instances.ts. */
  instances?: InstanceCounts;
}

function port(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name}=${raw} is not a TCP port`);
  return n;
}

/**
 * The local stack's settings from the environment (documented in docs/configuration.md):
 * STRAND_DATA_DIR, STRAND_TEMPORAL_PORT, STRAND_TEMPORAL_UI_PORT, STRAND_NATS_PORT,
 * STRAND_GATEWAY_PORT, STRAND_EDN_PORT.
 */
export function stackConfigFromEnv(env: NodeJS.ProcessEnv = process.env): StackConfig {
  return {
    dataDir: path.resolve(env.STRAND_DATA_DIR?.trim() || path.join(REPO_ROOT, '.strand', 'data')),
    host: '127.0.0.1',
    ports: {
      temporal: port(env, 'STRAND_TEMPORAL_PORT', 7233),
      temporalUi: port(env, 'STRAND_TEMPORAL_UI_PORT', 8233),
      nats: port(env, 'STRAND_NATS_PORT', 4222),
      gateway: port(env, 'STRAND_GATEWAY_PORT', 9420),
      edn: port(env, 'STRAND_EDN_PORT', 9421),
    },
    ui: true,
    serviceEnv: {},
  };
}
