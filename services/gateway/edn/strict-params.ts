import { z } from 'zod';
import { describeRequestIssues, strictRequest } from '../../../contracts/strict-request';
import type { EdnMap } from './edn-value';
import { EdnErrorCode, EdnOpError } from './protocol';

/**
 * Request params are strict at every depth (docs/edn.md, "Params"): a key an op does not take, at any
 * depth, is `request/invalid-params` naming it (`:client-info :colour: unrecognized key`), never
 * ignored. The declarations use `strictRequest`, the same deep strictness as HTTP bodies and
 * WebSocket frames.
 */

/** Any value: its type is the op's own business (it names the param and what it should be). */
export const anyValue = z.unknown().optional();

/** `:client-info` of a handshake: what psi's clients say about themselves, and the token on TCP. */
const clientInfoShape = { name: anyValue, version: anyValue, 'protocol-version': anyValue, features: anyValue, 'auth-token': anyValue };

/** The handshake: `{:client-info {...}}`, or the bare `{:protocol-version "1.0"}` older clients send (one map either way). */
export const HANDSHAKE_PARAMS = strictRequest(z.object({ 'client-info': z.object(clientInfoShape).optional(), ...clientInfoShape }));

/** `client-info.colour: unrecognized key` as an EDN client spells the path: `:client-info :colour: unrecognized key`. */
function ednPath(line: string): string {
  const at = line.indexOf(': ');
  const where = line.slice(0, at);
  const keys = where === 'params' ? [] : where.split('.').map((k) => (/^\d+$/.test(k) ? k : `:${k}`));
  return `${keys.length ? keys.join(' ') : ':params'}: ${line.slice(at + 2)}`;
}

/** Refuses params that do not fit `schema` (a strict copy), as `request/invalid-params` naming every problem by its path. */
export function checkParams(schema: z.ZodType, op: string, params: EdnMap): void {
  const checked = schema.safeParse(params);
  if (checked.success) return;
  const problems = describeRequestIssues(checked.error, 'params').split('; ').map(ednPath);
  throw new EdnOpError(EdnErrorCode.invalidParams, `invalid params for ${op}: ${problems.join('; ')}`, { problems });
}
