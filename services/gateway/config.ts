import type { ModelCatalog } from '../../contracts/model-catalog';
import { loadModelCatalog } from '../common/model-catalog-file';
import { httpUrlFromEnv, portFromEnv } from '../common/env';
import { providerConfig } from '../common/provider-config';
import { limitsFromEnv, type GatewayLimits } from './limits/limits-config';
import type { Budget } from '../../contracts/session-settings';
import { budgetFromEnv } from './budget-config';
import { modelServersOf, type ModelServer } from './sessions/stack-models';

export interface GatewayConfig {
  host: string;
  port: number;
  defaultModel: string;
  /** Why the default model is what it is; logged once at start so nobody wonders. */
  defaultModelNotice: string;
  /** The model catalog (built in, merged with STRAND_MODELS_FILE). */
  catalog: ModelCatalog;
  /** Providers with credentials or an endpoint (`scripted` is always there and not listed). */
  configuredProviders: string[];
  /** Providers whose base URL names a server of the user's own, asked which models it serves (GET /api/models). */
  modelServers: ModelServer[];
  /** Largest request body accepted, in bytes. */
  maxBodyBytes: number;
  /** How long a session's workflow waits for a command before it completes (STRAND_SESSION_IDLE_TIMEOUT_MS). */
  sessionIdleTimeoutMs?: number;
  /** Connection, buffer, frame and timeout limits of the HTTP+SSE and WebSocket transports. */
  limits: GatewayLimits;
  /**
   * The gateway's address as its clients know it when a proxy sits in front (STRAND_GATEWAY_PUBLIC_URL);
   * without it the API document names whatever address each request came in on.
   */
  publicUrl?: string;
  /** The spending caps new sessions start with (STRAND_BUDGET_USD, STRAND_BUDGET_TOKENS); none when unset. */
  defaultBudget?: Budget;
}

/** STRAND_GATEWAY_PUBLIC_URL as an origin and path without a trailing slash; a value that is no http(s) URL stops the gateway. */
function publicUrlFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  return httpUrlFromEnv(env, 'STRAND_GATEWAY_PUBLIC_URL', 'https://strand.example.org');
}

/**
 * Reads the gateway's settings. Providers and the default model come from the same variables the
 * worker reads (services/common/provider-config.ts): STRAND_DEFAULT_MODEL, else the first configured
 * provider's catalog default, else `scripted/echo`.
 */
export function gatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const host = env.STRAND_GATEWAY_HOST?.trim() || '127.0.0.1';
  const port = portFromEnv('STRAND_GATEWAY_PORT', 9420, env);
  const maxBodyBytes = Number(env.STRAND_MAX_BODY_BYTES ?? 10 * 1024 * 1024);
  const idle = Number(env.STRAND_SESSION_IDLE_TIMEOUT_MS ?? '');
  const catalog = loadModelCatalog(env);
  const providers = providerConfig(env, catalog);
  const publicUrl = publicUrlFromEnv(env);
  const defaultBudget = budgetFromEnv(env);
  return {
    host,
    port,
    maxBodyBytes,
    limits: limitsFromEnv(env),
    catalog,
    configuredProviders: providers.configured,
    modelServers: modelServersOf(providers),
    defaultModel: providers.defaultModel,
    defaultModelNotice: providers.defaultModelNotice,
    ...(Number.isInteger(idle) && idle > 0 ? { sessionIdleTimeoutMs: idle } : {}),
    ...(publicUrl !== undefined ? { publicUrl } : {}),
    ...(defaultBudget ? { defaultBudget } : {}),
  };
}

/** Whether a bind address only accepts connections from this machine. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
