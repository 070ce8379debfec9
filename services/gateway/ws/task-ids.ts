import { randomBytes } from 'node:crypto';
import { taskIdSchema, type TaskId } from '../../../contracts/ws-rpc';

/**
 * Task ids carry their own address: `task_` + lowercase base32 of `<session_id>\n<request key>`, where
 * the request key is the prompt's request id in that session (the session maps it to its turn). So
 * any gateway, after any restart, finds the turn from the id alone; the protocol's id rule
 * (`task_[a-z0-9]+`) rules out base64url, hence base32 without padding.
 */

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const SEPARATOR = '\n';

function base32(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

function unbase32(text: string): Buffer | undefined {
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of text) {
    const v = ALPHABET.indexOf(ch);
    if (v < 0) return undefined;
    value = ((value << 5) | v) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}

/** The task id of the prompt `requestKey` in session `sessionId`. */
export function encodeTaskId(sessionId: string, requestKey: string): TaskId {
  return `task_${base32(Buffer.from(`${sessionId}${SEPARATOR}${requestKey}`, 'utf8'))}`;
}

/** The session and request key a task id names, or undefined for an id this gateway never made. */
export function decodeTaskId(taskId: string): { sessionId: string; requestKey: string } | undefined {
  if (!taskIdSchema.safeParse(taskId).success) return undefined;
  const raw = unbase32(taskId.slice('task_'.length));
  const text = raw?.toString('utf8');
  const i = text?.indexOf(SEPARATOR) ?? -1;
  if (!text || i <= 0 || i === text.length - 1) return undefined;
  return { sessionId: text.slice(0, i), requestKey: text.slice(i + 1) };
}

function randomToken(length: number): string {
  return base32(randomBytes(Math.ceil((length * 5) / 8))).slice(0, length);
}

/**
 * A fresh request key: the prompt's request id (its idempotency key in the session). Fresh per chat,
 * never the client's `rpc_` id, which a client may reuse once the first request is over.
 */
export function newRequestKey(): string {
  return `ws-${randomToken(16)}`;
}

/** The id of a session a chat without `sessionId` gets (the reference client's own id style). */
export function newSessionId(): string {
  return `sess_${randomToken(16)}`;
}
