import { isEdnMap, isKeyword, type EdnValue } from './edn-value';
import type { ErrorFrameFields } from './frames';
import { EdnErrorCode, type EdnRequest } from './protocol';

/**
 * Inbound envelope validation, exactly as docs/edn.md "Envelopes" orders it: not a map, a
 * `:kind` other than `:request`, a missing or extra key → protocol/invalid-envelope; then `:id`,
 * `:op` and `:params` each with their own code. Every error echoes `:id` and `:op` when they were
 * readable (non-empty strings), so a client can match it to what it sent.
 */

const REQUIRED = ['id', 'kind', 'op'] as const;
const ALLOWED = new Set<string>([...REQUIRED, 'params']);

export type EnvelopeCheck = { ok: true; request: EdnRequest } | { ok: false; error: ErrorFrameFields };

const nonEmptyString = (v: EdnValue | undefined): v is string => typeof v === 'string' && v.trim() !== '';

/** Validates one parsed frame; `isPending` says whether an id is still waiting for its answer. */
export function checkEnvelope(frame: EdnValue, isPending: (id: string) => boolean): EnvelopeCheck {
  if (!isEdnMap(frame)) {
    return { ok: false, error: { code: EdnErrorCode.invalidEnvelope, message: 'a request frame must be an EDN map' } };
  }
  const id = nonEmptyString(frame.id) ? frame.id : undefined;
  const op = nonEmptyString(frame.op) ? frame.op : undefined;
  const fail = (code: EdnErrorCode, message: string): EnvelopeCheck => ({ ok: false, error: { code, message, id, op } });

  const kind = frame.kind;
  if (!isKeyword(kind) || kind.name !== 'request') return fail(EdnErrorCode.invalidEnvelope, 'a request frame\'s :kind must be :request');
  const missing = REQUIRED.filter((k) => !Object.prototype.hasOwnProperty.call(frame, k));
  if (missing.length > 0) return fail(EdnErrorCode.invalidEnvelope, `a request frame needs ${missing.map((k) => `:${k}`).join(' ')}`);
  const extra = Object.keys(frame).filter((k) => !ALLOWED.has(k));
  if (extra.length > 0) {
    return fail(EdnErrorCode.invalidEnvelope, `a request frame has only :id :kind :op :params; unexpected ${extra.slice(0, 5).map((k) => `:${k}`).join(' ')}`);
  }
  if (id === undefined) return fail(EdnErrorCode.invalidId, ':id must be a non-empty string');
  if (isPending(id)) return fail(EdnErrorCode.invalidId, `request ${JSON.stringify(id)} is still pending: use a new :id`);
  if (op === undefined) return fail(EdnErrorCode.invalidOp, ':op must be a non-empty string');
  const params = frame.params;
  if (params !== undefined && !isEdnMap(params)) return fail(EdnErrorCode.invalidParams, ':params must be a map');
  return { ok: true, request: { id, op, params: params ?? {} } };
}
