import { EdnSet, isEdnMap, isKeyword, type EdnValue } from '../edn-value';

/**
 * The subset of EQL (the query language of Pathom, which psi's `query_eql` speaks) strand answers: a
 * vector of attributes (keywords) and joins (`{:attr [sub-query]}`), nested to any depth.
 * Parameterized attributes (`(:attr {...})`), idents, unions and recursion are not supported.
 */
export type EqlNode = { kind: 'prop'; key: string } | { kind: 'join'; key: string; children: EqlNode[] };

/** Why a query was refused: it is not EQL strand reads (`invalid`) or names attributes nobody resolves (`unknown`). */
export class EqlError extends Error {
  constructor(
    readonly reason: 'invalid' | 'unknown' | 'failed',
    message: string,
    readonly attributes: string[] = [],
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
  }
}

function describe(v: EdnValue): string {
  if (v === null) return 'nil';
  if (Array.isArray(v)) return 'a vector';
  if (v instanceof EdnSet) return 'a set';
  if (isKeyword(v)) return `:${v.name}`;
  if (isEdnMap(v)) return 'a map';
  return typeof v === 'string' ? `the string "${v}"` : String(v);
}

/** Parses a query already read as EDN; `where` names the position for error messages. */
export function parseEql(value: EdnValue, where = 'the query'): EqlNode[] {
  if (!Array.isArray(value)) throw new EqlError('invalid', `${where} must be an EDN vector of attributes, got ${describe(value)}`);
  return value.map((item) => {
    if (isKeyword(item)) return { kind: 'prop' as const, key: item.name };
    if (isEdnMap(item)) {
      const keys = Object.keys(item);
      if (keys.length !== 1) throw new EqlError('invalid', `a join in ${where} must be a map with exactly one attribute, got ${keys.length}`);
      const key = keys[0]!;
      return { kind: 'join' as const, key, children: parseEql(item[key]!, `the join of :${key}`) };
    }
    throw new EqlError('invalid', `${where} may hold only attributes (keywords) and joins ({:attr [...]}), got ${describe(item)}`);
  });
}
