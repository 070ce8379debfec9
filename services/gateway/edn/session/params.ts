import { EdnSet, isKeyword, type EdnMap, type EdnValue } from '../edn-value';
import { EdnErrorCode, EdnOpError } from '../protocol';

/**
 * Readers of request params. psi's clients send strings where a name is expected but sometimes
 * keywords (`:provider :anthropic`, `:level :high`): both are accepted as text. A missing or
 * mistyped param is `request/invalid-params` naming it.
 */
const invalid = (message: string) => new EdnOpError(EdnErrorCode.invalidParams, message);

/** A string or keyword param as text, or undefined when absent (or nil). */
export function optText(params: EdnMap, key: string): string | undefined {
  const v = params[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (isKeyword(v)) return v.name;
  throw invalid(`invalid request parameter :${key}: a string`);
}

/** A non-blank string or keyword param. */
export function text(params: EdnMap, key: string): string {
  const v = optText(params, key);
  if (v === undefined || v.trim() === '') throw invalid(`invalid request parameter :${key}: a non-empty string`);
  return v;
}

export function bool(params: EdnMap, key: string): boolean {
  const v = params[key];
  if (typeof v !== 'boolean') throw invalid(`invalid request parameter :${key}: true or false`);
  return v;
}

/** A vector, list or set of strings/keywords as names; undefined when absent. */
export function optNames(params: EdnMap, key: string): string[] | undefined {
  const v = params[key];
  if (v === undefined || v === null) return undefined;
  const items: EdnValue[] | undefined = Array.isArray(v) ? v : v instanceof EdnSet ? v.items : undefined;
  if (!items) throw invalid(`invalid request parameter :${key}: a vector of strings`);
  return items.map((item) => {
    if (typeof item === 'string') return item;
    if (isKeyword(item)) return item.name;
    throw invalid(`invalid request parameter :${key}: a vector of strings`);
  });
}

export function optInt(params: EdnMap, key: string): number | undefined {
  const v = params[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw invalid(`invalid request parameter :${key}: a non-negative integer`);
  return v;
}

/** strand prompts carry text only: images are refused rather than silently dropped. */
export function refuseImages(params: EdnMap): void {
  const images = params.images;
  const count = Array.isArray(images) ? images.length : images instanceof EdnSet ? images.items.length : images === undefined || images === null ? 0 : 1;
  if (count > 0) throw invalid('images are not supported: strand prompts carry text only');
}
