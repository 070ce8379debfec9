import path from 'node:path';
import type { InstanceCounts } from './instances';
import { envPort, LOCAL_STACK_HOST, LOCAL_STACK_PORTS } from '../../contracts/local-stack';

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
  /**
   * Which code the store, worker and gateway run: 'built' is the esbuild bundles in dist/services
   * (infra/build/services-build.ts; rebuilt first when stale), 'source' the TypeScript through tsx.
   * Left out, 'source': tests start what they test. `npm start` runs 'built' unless STRAND_FROM_SOURCE=1.
   */
  code?: ServiceCode;
}

export type ServiceCode = 'built' | 'source';

/** `npm start`'s choice: the built services, unless STRAND_FROM_SOURCE=1 (or true) keeps tsx. */
export function serviceCodeFromEnv(env: NodeJS.ProcessEnv = process.env): ServiceCode {
  return /^(1|true|yes)$/i.test(env.STRAND_FROM_SOURCE?.trim() ?? '') ? 'source' : 'built';
}

/**
 * The local stack's settings from the environment (documented in docs/configuration.md):
 * STRAND_DATA_DIR, STRAND_TEMPORAL_PORT, STRAND_TEMPORAL_UI_PORT, STRAND_NATS_PORT,
 * STRAND_GATEWAY_PORT, STRAND_EDN_PORT, STRAND_FROM_SOURCE.
 */
export function stackConfigFromEnv(env: NodeJS.ProcessEnv = process.env): StackConfig {
  return {
    dataDir: path.resolve(env.STRAND_DATA_DIR?.trim() || path.join(REPO_ROOT, '.strand', 'data')),
    host: LOCAL_STACK_HOST,
    ports: {
      temporal: envPort(env, 'STRAND_TEMPORAL_PORT', LOCAL_STACK_PORTS.temporal),
      temporalUi: envPort(env, 'STRAND_TEMPORAL_UI_PORT', LOCAL_STACK_PORTS.temporalUi),
      nats: envPort(env, 'STRAND_NATS_PORT', LOCAL_STACK_PORTS.nats),
      gateway: envPort(env, 'STRAND_GATEWAY_PORT', LOCAL_STACK_PORTS.gateway),
      edn: envPort(env, 'STRAND_EDN_PORT', LOCAL_STACK_PORTS.edn),
    },
    ui: true,
    serviceEnv: {},
    code: serviceCodeFromEnv(env),
  };
}
