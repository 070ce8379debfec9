import { httpUrlFromEnv, positiveIntFromEnv } from './env';

/** How often every gateway and worker publishes its telemetry snapshot (docs/observability.md, "The operator view's data"). */
const DEFAULT_TELEMETRY_INTERVAL_MS = 5_000;

/** STRAND_TELEMETRY_INTERVAL_MS: the snapshot interval; the same for every process of a stack (the gateways' history is made of it). */
export function telemetryIntervalMs(env: NodeJS.ProcessEnv = process.env): number {
  return positiveIntFromEnv(env, 'STRAND_TELEMETRY_INTERVAL_MS', DEFAULT_TELEMETRY_INTERVAL_MS);
}

/**
 * STRAND_TEMPORAL_UI_URL: where people open the Temporal Web UI, without a trailing slash, or null when
 * unset (the operator view and `/api/turns` then link no workflow). A value that is no http(s) URL stops the process.
 */
export function temporalUiUrl(env: NodeJS.ProcessEnv = process.env): string | null {
  return httpUrlFromEnv(env, 'STRAND_TEMPORAL_UI_URL', 'http://127.0.0.1:8233') ?? null;
}
