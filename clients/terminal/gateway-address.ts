import fs from 'node:fs';
import { envPort, LOCAL_STACK_HOST, LOCAL_STACK_PORTS } from '../../contracts/local-stack';

/** Where `strand chat` finds the gateway, and what it proves itself with. */
export interface GatewayAddress {
  /** The gateway's base URL, without a trailing slash (`http://127.0.0.1:9420`). */
  url: string;
  /** The bearer token (STRAND_TOKEN, else the stack's generated one), when the gateway needs one. */
  token?: string;
}

/**
 * STRAND_URL names the gateway; STRAND_GATEWAY_URL (what `strand jobs` and `strand turns` read) is honoured next, so one
 * setting serves both commands; without either, the local stack's address (`npm start`'s ports).
 */
export function gatewayAddressFromEnv(env: NodeJS.ProcessEnv = process.env): GatewayAddress {
  const explicit = env.STRAND_URL?.trim() || env.STRAND_GATEWAY_URL?.trim();
  let url: string;
  if (explicit) url = explicit.replace(/\/+$/, '');
  else {
    url = `http://${env.STRAND_GATEWAY_HOST?.trim() || LOCAL_STACK_HOST}:${envPort(env, 'STRAND_GATEWAY_PORT', LOCAL_STACK_PORTS.gateway)}`;
  }
  const token = env.STRAND_TOKEN?.trim() || generatedToken(env);
  return token ? { url, token } : { url };
}

/**
 * The stack's own token when it generated one (STRAND_GENERATED_TOKEN_FILE, as the gateway reads it)
 * and this process can read that file: a client on the stack's machine needs no STRAND_TOKEN then.
 */
function generatedToken(env: NodeJS.ProcessEnv): string | undefined {
  const file = env.STRAND_GENERATED_TOKEN_FILE?.trim();
  if (!file) return undefined;
  try {
    return fs.readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined; // not created yet, or not ours to read: the gateway's 401 says what to do
  }
}
