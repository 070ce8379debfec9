/**
 * NATS subjects of the session store. Ids that are not safe subject tokens are encoded reversibly:
 * an id matching [A-Za-z0-9_-]+ is used as is; anything else becomes `~` + unpadded base64url of its
 * UTF-8 bytes (a `~` never appears in a plain token, so the two never collide).
 */
const SAFE_TOKEN = /^[A-Za-z0-9_-]+$/;

export function encodeSubjectToken(id: string): string {
  if (SAFE_TOKEN.test(id)) return id;
  return `~${Buffer.from(id, 'utf8').toString('base64url')}`;
}

export function decodeSubjectToken(token: string): string {
  return token.startsWith('~') ? Buffer.from(token.slice(1), 'base64url').toString('utf8') : token;
}

/** Request subject of a store function, e.g. `session.append-many`. */
export function storeFunctionSubject(wireName: string): string {
  return `session.${wireName}`;
}

/** The six event types. */
/** @public the shape its type is derived from: contracts own the shape (a schema, types derived). */
export const STORE_EVENT_TYPES = ['created', 'message-added', 'message-updated', 'status-changed', 'meta-updated', 'deleted'] as const;
export type StoreEventType = (typeof STORE_EVENT_TYPES)[number];

/** Subject of one event: `session.evt.<type>.<token>`. */
export function storeEventSubject(type: StoreEventType, sessionId: string): string {
  return `session.evt.${type}.${encodeSubjectToken(sessionId)}`;
}

/** Queue group every store instance serves in, so each request is answered once. */
export const STORE_QUEUE_GROUP = 'strand-session-store';
