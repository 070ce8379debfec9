import { timingSafeEqual, createHash } from 'node:crypto';
import fs from 'node:fs';
import { GENERATED_TOKEN_PRINCIPAL, readOrCreateToken } from './generated-token';

/**
 * Who may use the gateway: tokens mapped to principals, from STRAND_TOKENS_FILE (JSON
 * `{"<token>": "<principal>"}`; wins when both are set) or STRAND_TOKENS (`token:principal,…`); with
 * neither, from STRAND_GENERATED_TOKEN_FILE (one token, generated on first start: generated-token.ts).
 * With none configured, auth is off (and the gateway binds loopback only).
 */
export interface GatewayAuth {
  /** True when tokens are configured: every transport then requires one. */
  readonly enabled: boolean;
  /**
   * The principal a token belongs to, or undefined for a missing or wrong token. Comparison is in
   * constant time over digests, so neither a token's content nor its length leaks through timing.
   * With auth off every caller is the principal `local`.
   */
  principalOf(token: string | undefined): string | undefined;
}

export const LOCAL_PRINCIPAL = 'local';

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/**
 * Reads the tokens; a malformed file or variable is an error naming it (the gateway must not start open
 * by mistake). `announce` gets the log line of a generated token (the only place it is ever printed).
 */
export function loadTokens(env: NodeJS.ProcessEnv = process.env, announce: (line: string) => void = (line) => console.log(`[gateway] ${line}`)): Map<string, string> {
  const file = env.STRAND_TOKENS_FILE?.trim();
  const tokens = new Map<string, string>();
  if (file) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (err) {
      throw new Error(`STRAND_TOKENS_FILE=${file}: ${(err as Error).message}`);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`STRAND_TOKENS_FILE=${file}: expected {"<token>": "<principal>"}`);
    for (const [token, principal] of Object.entries(parsed)) {
      if (typeof principal !== 'string' || !token || !principal) throw new Error(`STRAND_TOKENS_FILE=${file}: every token maps to a non-empty principal`);
      tokens.set(token, principal);
    }
    return tokens;
  }
  const list = env.STRAND_TOKENS?.trim();
  if (!list) {
    const generated = env.STRAND_GENERATED_TOKEN_FILE?.trim();
    if (generated) tokens.set(readOrCreateToken(generated, announce), GENERATED_TOKEN_PRINCIPAL);
    return tokens;
  }
  for (const pair of list.split(',')) {
    const i = pair.indexOf(':');
    const token = pair.slice(0, i).trim();
    const principal = pair.slice(i + 1).trim();
    if (i <= 0 || !token || !principal) throw new Error(`STRAND_TOKENS: "${pair}" is not token:principal`);
    tokens.set(token, principal);
  }
  return tokens;
}

export function createGatewayAuth(tokens: Map<string, string>): GatewayAuth {
  const entries = [...tokens].map(([token, principal]) => ({ digest: digest(token), principal }));
  return {
    enabled: entries.length > 0,
    principalOf(token) {
      if (entries.length === 0) return LOCAL_PRINCIPAL;
      if (token === undefined) return undefined;
      const d = digest(token);
      let found: string | undefined;
      // Every entry is compared, whatever matched, so the time does not depend on which token it was.
      for (const e of entries) if (timingSafeEqual(d, e.digest)) found = e.principal;
      return found;
    },
  };
}

/** The bearer token of an `Authorization` header value, if any. */
export function bearerOf(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(.+)$/i.exec(header?.trim() ?? '');
  return m ? m[1]!.trim() : undefined;
}
