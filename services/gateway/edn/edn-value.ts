/**
 * The EDN values strand reads and writes (docs/edn.md "Transport"): maps with keyword keys,
 * vectors (lists read as vectors too), sets, strings, keywords, numbers, booleans and nil. Maps are
 * plain objects keyed by the keyword's name without the colon (`:session-id` → `"session-id"`,
 * `:psi.agent-session/model` → `"psi.agent-session/model"`), so zod can validate params directly.
 * A keyword *value* is a `Keyword`, so it stays distinct from a string.
 */
export class Keyword {
  constructor(readonly name: string) {}
  toString(): string {
    return `:${this.name}`;
  }
}

/** An EDN set (`#{...}`); its items in the order read or given. */
export class EdnSet {
  constructor(readonly items: EdnValue[]) {}
}

export type EdnValue = null | boolean | number | string | Keyword | EdnSet | EdnValue[] | EdnMap;
export interface EdnMap {
  [key: string]: EdnValue;
}

/** A keyword value: `kw('request')` is `:request`. */
export const kw = (name: string): Keyword => new Keyword(name);

export const isKeyword = (v: unknown): v is Keyword => v instanceof Keyword;

/** A plain map (not a vector, set, keyword or nil). */
export const isEdnMap = (v: unknown): v is EdnMap =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Keyword) && !(v instanceof EdnSet);
