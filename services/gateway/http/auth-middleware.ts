import type { Context, MiddlewareHandler } from 'hono';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import { bearerOf, type GatewayAuth } from '../auth/tokens';
import { errorResponse } from './errors';

/** Routes anyone may read: the API's own description. */
const PUBLIC = new Set(['/api/openapi.json', '/api/docs']);

/**
 * Requires `Authorization: Bearer <token>` when tokens are configured and records the caller's
 * principal for the routes; with auth off every caller is the local principal.
 */
export function authMiddleware(auth: GatewayAuth): MiddlewareHandler {
  return async (c, next) => {
    if (PUBLIC.has(c.req.path)) return next();
    const principal = auth.principalOf(bearerOf(c.req.header('Authorization')));
    if (principal === undefined) {
      c.header('WWW-Authenticate', 'Bearer');
      return errorResponse(c, new StrandError(ErrorCode.UNAUTHORIZED, 'a valid bearer token is required (Authorization: Bearer <token>)'));
    }
    c.set('principal' as never, (auth.enabled ? principal : undefined) as never);
    return next();
  };
}

/**
 * The caller's principal for session ownership, or undefined with auth off (then sessions have no
 * owner and everyone on this machine sees every session).
 */
export function principalOf(c: Context): string | undefined {
  return c.get('principal' as never) as string | undefined;
}
