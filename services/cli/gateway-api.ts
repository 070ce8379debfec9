import { ApiClient, ApiError } from '../../clients/core/api-client';
import { stackConfigFromEnv } from '../../infra/stack/stack-config';

/** The gateway the CLI talks to: STRAND_GATEWAY_URL, else the local stack's address. */
export function gatewayUrl(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.STRAND_GATEWAY_URL?.trim();
  if (explicit) return explicit.replace(/\/$/, '');
  const config = stackConfigFromEnv(env);
  return `http://${env.STRAND_GATEWAY_HOST?.trim() || config.host}:${config.ports.gateway}`;
}

/** The gateway's calls as a CLI command makes them (`strand turns|jobs|job|schedule|hook`). */
export interface GatewayApi {
  /** A JSON request; its JSON reply. */
  call<T = unknown>(method: string, route: string, body?: unknown): Promise<T>;
  /** A GET whose reply is text (a markdown report). */
  text(route: string): Promise<string>;
}

/**
 * clients/core's API client on gatewayUrl(), with STRAND_TOKEN as the bearer token read at each call.
 * A refusal is thrown as one line with its code (`JOB_NOT_FOUND: no job x`), which the command prints;
 * a gateway that does not answer says so and asks whether the stack runs.
 */
export function gatewayApi(timeoutMs: number): GatewayApi {
  const client = new ApiClient({ baseUrl: gatewayUrl(), token: () => process.env.STRAND_TOKEN?.trim() || undefined, timeoutMs, unreachableHint: 'is the stack running? (strand up)' });
  return {
    call: (method, route, body) => withCode(() => client.call(method, route, body)),
    text: (route) => withCode(() => client.text(route)),
  };
}

async function withCode<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ApiError && err.status !== 0) throw new Error(`${err.code}: ${err.message}`);
    throw err;
  }
}
