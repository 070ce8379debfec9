import { encodeEdn } from './codec';
import { kw, type EdnMap } from './edn-value';
import type { EdnErrorCode } from './protocol';

/**
 * The outbound envelopes of docs/edn.md, each built with exactly its allowed keys, so a key
 * outside those sets can never reach a client. Each builder returns the encoded line with its `\n`.
 */

export interface ErrorFrameFields {
  code: EdnErrorCode;
  message: string;
  id?: string;
  op?: string;
  retryable?: boolean;
  data?: EdnMap;
}

export function responseLine(id: string, op: string, data: EdnMap): string {
  return `${encodeEdn({ kind: kw('response'), id, op, ok: true, data })}\n`;
}

export function errorLine(e: ErrorFrameFields): string {
  return `${encodeEdn({
    kind: kw('error'),
    'error-code': e.code,
    'error-message': e.message,
    id: e.id,
    op: e.op,
    retryable: e.retryable,
    data: e.data,
  })}\n`;
}

export interface EventFrameFields {
  topic: string;
  data: EdnMap;
  seq: number;
  ts: Date;
  id?: string;
}

export function eventLine(e: EventFrameFields): string {
  return `${encodeEdn({ kind: kw('event'), event: e.topic, data: e.data, id: e.id, seq: e.seq, ts: e.ts })}\n`;
}
