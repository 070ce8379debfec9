/**
 * Environment settings shared by the gateway, worker and CLI. Every variable is documented in
 * docs/configuration.md; defaults are the local stack's (`npm start`).
 */
export interface RuntimeEnv {
  natsUrl: string;
  temporalAddress: string;
  temporalNamespace: string;
  logLevel: string;
}

export function runtimeEnv(env: NodeJS.ProcessEnv = process.env): RuntimeEnv {
  return {
    natsUrl: env.STRAND_NATS_URL?.trim() || `nats://127.0.0.1:${env.STRAND_NATS_PORT?.trim() || '4222'}`,
    temporalAddress: env.STRAND_TEMPORAL_ADDRESS?.trim() || `127.0.0.1:${env.STRAND_TEMPORAL_PORT?.trim() || '7233'}`,
    temporalNamespace: env.STRAND_TEMPORAL_NAMESPACE?.trim() || 'default',
    logLevel: env.STRAND_LOG_LEVEL?.trim() || 'info',
  };
}

/** Parses a TCP port from the environment, failing with the variable's name when it is not one. */
export function portFromEnv(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${name}=${raw} is not a TCP port`);
  return port;
}

/** A positive integer from `name`, the default when unset; anything else is an error naming the variable. */
export function positiveIntFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name}=${raw} is not a positive integer`);
  return n;
}

/**
 * The environment variable `name` as an http(s) URL's origin and path, without a trailing slash;
 * undefined when unset or blank. A value that is no http(s) URL throws, naming `example`: a process
 * reads it when it starts, so a wrong value stops it there.
 */
export function httpUrlFromEnv(env: NodeJS.ProcessEnv, name: string, example: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${name}=${raw} is not a URL (e.g. ${example})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${name}=${raw} is not an http or https URL`);
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}
