import { createHash } from 'node:crypto';

/**
 * Session ids a client chooses itself (WebSocket `chat.start {sessionId}`, `POST /v1/chat/stream
 * {sessionId}`, `strand rpc-edn --session-id`) live in a namespace of their principal when auth is on.
 *
 * Without scoping, principal B naming an id that A already owns would be refused (SESSION_NOT_FOUND)
 * while an unknown id would be created: B could learn which ids A has. So a name X of principal P is
 * stored as `scopedSessionId(P, X)`, a value of (P, X) alone: P naming X again finds the same session,
 * B naming X creates (then finds) a session of its own, and whether A has X changes nothing B can see.
 * See SessionService.clientSessionId for the one exception (a name that already is one of P's own
 * stored ids names that session) and docs/http.md ("Auth and tenancy") for the whole rule.
 *
 * Derived ids are `named-` + 40 hex digits (160 bits of SHA-256 over a versioned, unambiguous
 * encoding of both): valid store ids, NATS subject tokens as they are (`[A-Za-z0-9_-]`), file names
 * without escaping, and within the WebSocket protocol's own session id rule (1-128 of `A-Za-z0-9_-`),
 * so a client may name a derived id back.
 */
const SCOPED_SESSION_ID_PREFIX = 'named-';

export function scopedSessionId(principal: string, name: string): string {
  const digest = createHash('sha256').update(`strand/client-session-id/v1\n${JSON.stringify([principal, name])}`, 'utf8').digest('hex');
  return `${SCOPED_SESSION_ID_PREFIX}${digest.slice(0, 40)}`;
}
