import { isKeywordName } from './edn-parse';
import { EdnSet, Keyword } from './edn-value';

/**
 * Writes one frame's value as one line of the EDN subset every client parses (docs/edn.md
 * "Transport"): maps with keyword keys, vectors, sets, strings, keywords, integers, floats, true,
 * false, nil. Nothing else can come out: no tagged literals, no characters, and never a raw newline
 * (a string's control characters are escaped), so a frame is always exactly one line. A value that
 * has no place in that subset is an `EdnEncodeError`, not a guess.
 */
export class EdnEncodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EdnEncodeError';
  }
}

/** Deep enough for any frame we build; a cycle ends here instead of overflowing the stack. */
const MAX_ENCODE_DEPTH = 256;

const ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

function escapeChar(c: string): string {
  return ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Control characters, DEL and the Unicode line separators are escaped (readers that split on them
 * would cut a frame); a lone surrogate cannot be written as UTF-8 and becomes U+FFFD.
 */
function encodeString(s: string): string {
  const body = s
    // eslint-disable-next-line no-control-regex -- control characters are exactly what must be escaped
    .replace(/["\\\u0000-\u001f\u007f\u2028\u2029]/g, escapeChar)
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
  return `"${body}"`;
}

function encodeNumber(n: number): string {
  if (!Number.isFinite(n)) throw new EdnEncodeError(`${n} has no EDN form`);
  if (Object.is(n, -0)) return '0';
  const text = String(n);
  // An integral double past 2^53 is written as a float, so no reader takes it for an exact integer.
  return Number.isInteger(n) && !Number.isSafeInteger(n) && /^-?\d+$/.test(text) ? `${text}.0` : text;
}

function encodeKeyword(name: string): string {
  if (!isKeywordName(name)) throw new EdnEncodeError(`${JSON.stringify(name)} is not a valid keyword`);
  return `:${name}`;
}

const isPlainObject = (v: object): v is Record<string, unknown> => {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
};

function encodeValue(value: unknown, depth: number): string {
  if (depth > MAX_ENCODE_DEPTH) throw new EdnEncodeError(`nesting deeper than ${MAX_ENCODE_DEPTH} levels (a cycle?)`);
  switch (typeof value) {
    case 'undefined':
      return 'nil';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return encodeNumber(value);
    case 'bigint':
      return value.toString();
    case 'string':
      return encodeString(value);
    case 'object':
      break;
    default:
      throw new EdnEncodeError(`a ${typeof value} has no EDN form`);
  }
  if (value === null) return 'nil';
  if (value instanceof Keyword) return encodeKeyword(value.name);
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new EdnEncodeError('an invalid Date has no EDN form');
    return encodeString(value.toISOString());
  }
  if (Array.isArray(value)) return `[${value.map((v) => encodeValue(v, depth + 1)).join(' ')}]`;
  if (value instanceof EdnSet) return `#{${value.items.map((v) => encodeValue(v, depth + 1)).join(' ')}}`;
  if (!isPlainObject(value)) throw new EdnEncodeError(`a ${value.constructor?.name ?? 'non-plain object'} has no EDN form`);
  const parts: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    parts.push(`${encodeKeyword(k)} ${encodeValue(v, depth + 1)}`);
  }
  return `{${parts.join(' ')}}`;
}

/** One value as EDN text without a newline. Plain objects become maps with keyword keys; undefined entries are left out. */
export function encodeEdn(value: unknown): string {
  return encodeValue(value, 0);
}
