import { FALLBACK_MODEL, modelIdSchema } from '../../contracts/models';
import { portFromEnv } from '../common/env';

export interface GatewayConfig {
  host: string;
  port: number;
  defaultModel: string;
  /** Why the default model is what it is; logged once at start so nobody wonders. */
  defaultModelNotice?: string;
  /** Largest request body accepted, in bytes. */
  maxBodyBytes: number;
  /** How long a session's workflow waits for a command before it completes (STRAND_SESSION_IDLE_TIMEOUT_MS). */
  sessionIdleTimeoutMs?: number;
}

/** Providers this build can actually serve; a key for any other provider does not change the default. */
const BUILT_PROVIDERS = new Set(['scripted']);

/**
 * Reads the gateway's settings. The default model is STRAND_DEFAULT_MODEL when set, and otherwise
 * `scripted/echo`, with a notice saying whether that is because no provider key is configured or
 * because the keyed provider is not part of this build yet.
 */
export function gatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const host = env.STRAND_GATEWAY_HOST?.trim() || '127.0.0.1';
  const port = portFromEnv('STRAND_GATEWAY_PORT', 9420, env);
  const maxBodyBytes = Number(env.STRAND_MAX_BODY_BYTES ?? 10 * 1024 * 1024);
  const idle = Number(env.STRAND_SESSION_IDLE_TIMEOUT_MS ?? '');
  const sessionIdleTimeoutMs = Number.isInteger(idle) && idle > 0 ? idle : undefined;
  const explicit = env.STRAND_DEFAULT_MODEL?.trim();
  if (explicit) {
    const parsed = modelIdSchema.safeParse(explicit);
    if (!parsed.success) throw new Error(`STRAND_DEFAULT_MODEL=${explicit}: ${parsed.error.issues[0]?.message}`);
    return { host, port, maxBodyBytes, sessionIdleTimeoutMs, defaultModel: explicit };
  }
  const keyed = [
    ['anthropic', env.ANTHROPIC_API_KEY],
    ['openai', env.OPENAI_API_KEY],
  ].filter(([, key]) => key && key.trim() !== '').map(([name]) => name as string);
  const usable = keyed.find((p) => BUILT_PROVIDERS.has(p));
  if (usable) return { host, port, maxBodyBytes, sessionIdleTimeoutMs, defaultModel: usable };
  const defaultModelNotice =
    keyed.length === 0
      ? `no provider API key in the environment (ANTHROPIC_API_KEY, OPENAI_API_KEY): the default model is ${FALLBACK_MODEL}`
      : `${keyed.join(', ')} key set but that provider is not in this build yet: the default model is ${FALLBACK_MODEL}`;
  return { host, port, maxBodyBytes, sessionIdleTimeoutMs, defaultModel: FALLBACK_MODEL, defaultModelNotice };
}
