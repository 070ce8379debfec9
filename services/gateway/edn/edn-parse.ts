import { EdnSet, Keyword, type EdnMap, type EdnValue } from './edn-value';

/**
 * A strict reader of one EDN value per frame (docs/edn.md "Transport"). It accepts exactly the
 * subset strand's clients send and refuses everything else with a message a person can act on:
 * tagged literals, `#_` discard, comments, characters, ratios, `M`/`N` suffixes, symbols other than
 * true/false/nil, map keys that are not keywords, duplicate keys, trailing text and nesting deeper
 * than `maxDepth`. Refusing instead of guessing keeps a malformed frame from meaning something.
 */
export class EdnSyntaxError extends Error {
  constructor(
    message: string,
    /** 1-based column (in UTF-16 units) where the problem was found. */
    readonly column: number,
  ) {
    super(`${message} at column ${column}`);
    this.name = 'EdnSyntaxError';
  }
}

export interface ParseOptions {
  /** Deepest nesting of collections accepted (a frame map is depth 1). */
  maxDepth?: number;
}

const DEFAULT_MAX_DEPTH = 64;

const DELIMITERS = new Set(['{', '}', '[', ']', '(', ')', '"', ';', '\\']);
const isWhitespace = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\n' || c === ',' || c === '\f';
/** One part of a keyword (namespace or name): letters, digits and the symbol punctuation EDN allows. */
const KEYWORD_PART = /^[\p{L}\p{N}*+!\-_?<>=.$%&'#:]+$/u;
const INTEGER = /^[+-]?(0|[1-9]\d*)$/;
const FLOAT = /^[+-]?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;
const STRING_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' };

/** A valid keyword name (without the colon): `name` or `namespace/name`. */
export function isKeywordName(name: string): boolean {
  if (name.startsWith(':') || name.startsWith('#')) return false;
  const slash = name.indexOf('/');
  if (slash === -1) return KEYWORD_PART.test(name);
  return KEYWORD_PART.test(name.slice(0, slash)) && KEYWORD_PART.test(name.slice(slash + 1));
}

class Reader {
  private pos = 0;

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
  ) {}

  readTop(): EdnValue {
    this.skipWhitespace();
    if (this.pos >= this.text.length) this.fail('empty frame');
    const value = this.readValue(0);
    this.skipWhitespace();
    if (this.text[this.pos] === ';') this.fail('comments are not supported');
    if (this.pos < this.text.length) this.fail(`unexpected text after the value: ${this.preview()}`);
    return value;
  }

  private fail(message: string, at = this.pos): never {
    throw new EdnSyntaxError(message, at + 1);
  }

  private preview(): string {
    const rest = this.text.slice(this.pos, this.pos + 20);
    return JSON.stringify(rest.length < this.text.length - this.pos ? `${rest}…` : rest);
  }

  private skipWhitespace(): void {
    while (this.pos < this.text.length && isWhitespace(this.text[this.pos]!)) this.pos++;
  }

  private readValue(depth: number): EdnValue {
    const c = this.text[this.pos];
    switch (c) {
      case undefined:
        return this.fail('unexpected end of frame');
      case '{':
        return this.readMap(depth + 1);
      case '[':
        return this.readSeq(']', depth + 1);
      case '(':
        return this.readSeq(')', depth + 1);
      case '"':
        return this.readString();
      case '#':
        return this.readDispatch(depth);
      case ';':
        return this.fail('comments are not supported');
      case '\\':
        return this.fail('character literals are not supported');
      case '}':
      case ']':
      case ')':
        return this.fail(`unexpected "${c}"`);
      case "'":
      case '`':
      case '~':
      case '@':
      case '^':
        return this.fail(`reader macro "${c}" is not supported`);
      default:
        return this.readToken();
    }
  }

  private enter(depth: number): void {
    if (depth > this.maxDepth) this.fail(`nesting deeper than ${this.maxDepth} levels`);
    this.pos++;
  }

  /** Reads items up to `close`; the opening delimiter is at `pos`. */
  private readItems(close: string, depth: number, what: string): EdnValue[] {
    const start = this.pos;
    this.enter(depth);
    const items: EdnValue[] = [];
    for (;;) {
      this.skipWhitespace();
      if (this.pos >= this.text.length) this.fail(`${what} opened at column ${start + 1} is not closed`);
      if (this.text[this.pos] === close) {
        this.pos++;
        return items;
      }
      items.push(this.readValue(depth));
    }
  }

  private readSeq(close: string, depth: number): EdnValue[] {
    return this.readItems(close, depth, close === ']' ? 'vector' : 'list');
  }

  private readMap(depth: number): EdnMap {
    const start = this.pos;
    this.enter(depth);
    const map: EdnMap = {};
    for (;;) {
      this.skipWhitespace();
      if (this.pos >= this.text.length) this.fail(`map opened at column ${start + 1} is not closed`);
      if (this.text[this.pos] === '}') {
        this.pos++;
        return map;
      }
      const keyAt = this.pos;
      const key = this.readValue(depth);
      if (!(key instanceof Keyword)) this.fail('map keys must be keywords', keyAt);
      if (Object.prototype.hasOwnProperty.call(map, key.name)) this.fail(`duplicate map key :${key.name}`, keyAt);
      this.skipWhitespace();
      if (this.pos >= this.text.length || this.text[this.pos] === '}') this.fail(`map key :${key.name} has no value`);
      // defineProperty: a key such as :__proto__ must become an own entry, never the object's prototype.
      Object.defineProperty(map, key.name, { value: this.readValue(depth), enumerable: true, writable: true, configurable: true });
    }
  }

  private readDispatch(depth: number): EdnValue {
    const next = this.text[this.pos + 1];
    if (next === '{') {
      this.pos++;
      const at = this.pos;
      const items = this.readItems('}', depth + 1, 'set');
      // Items are compared by their text form: equal EDN values read from equal text.
      const seen = new Set<string>();
      for (const item of items) {
        const form = JSON.stringify(item, (_k, v: unknown) => (v instanceof Keyword ? { keyword: v.name } : v instanceof EdnSet ? { set: v.items } : v));
        if (seen.has(form)) this.fail('duplicate item in set', at);
        seen.add(form);
      }
      return new EdnSet(items);
    }
    if (next === '_') this.fail('discard forms (#_) are not supported');
    if (next === '#') this.fail('symbolic values (##Inf, ##NaN) are not supported');
    return this.fail('tagged literals are not supported');
  }

  private readString(): string {
    const start = this.pos;
    this.pos++;
    let out = '';
    for (;;) {
      const end = this.text.length;
      let i = this.pos;
      while (i < end && this.text[i] !== '"' && this.text[i] !== '\\') i++;
      out += this.text.slice(this.pos, i);
      this.pos = i;
      if (i >= end) this.fail(`string opened at column ${start + 1} is not closed`);
      if (this.text[i] === '"') {
        this.pos++;
        return out;
      }
      out += this.readEscape();
    }
  }

  private readEscape(): string {
    const c = this.text[this.pos + 1];
    if (c === 'u') {
      const hex = this.text.slice(this.pos + 2, this.pos + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('\\u must be followed by four hex digits');
      this.pos += 6;
      return String.fromCharCode(parseInt(hex, 16));
    }
    const replacement = c === undefined ? undefined : STRING_ESCAPES[c];
    if (replacement === undefined) this.fail(`unknown string escape \\${c ?? ''}`);
    this.pos += 2;
    return replacement;
  }

  private readToken(): EdnValue {
    const start = this.pos;
    while (this.pos < this.text.length && !isWhitespace(this.text[this.pos]!) && !DELIMITERS.has(this.text[this.pos]!)) this.pos++;
    const token = this.text.slice(start, this.pos);
    if (token.startsWith(':')) {
      const name = token.slice(1);
      if (name.startsWith(':')) this.fail(`auto-resolved keywords (${token}) are not supported`, start);
      if (!isKeywordName(name)) this.fail(`invalid keyword ${JSON.stringify(token)}`, start);
      return new Keyword(name);
    }
    if (token === 'nil') return null;
    if (token === 'true') return true;
    if (token === 'false') return false;
    if (/^[+-]?\d/.test(token)) return this.number(token, start);
    return this.fail(`symbols are not supported (only true, false and nil): ${JSON.stringify(token)}`, start);
  }

  private number(token: string, start: number): number {
    if (INTEGER.test(token)) {
      const n = Number(token);
      if (!Number.isSafeInteger(n)) this.fail(`integer ${token} is out of range`, start);
      return n;
    }
    if (FLOAT.test(token)) {
      const n = Number(token);
      if (!Number.isFinite(n)) this.fail(`number ${token} is out of range`, start);
      return n;
    }
    if (token.includes('/')) this.fail(`ratios are not supported: ${token}`, start);
    if (/[MN]$/.test(token)) this.fail(`number suffixes (M, N) are not supported: ${token}`, start);
    return this.fail(`invalid number ${JSON.stringify(token)}`, start);
  }
}

/** Reads exactly one EDN value from `text` (one frame, without its newline). */
export function parseEdn(text: string, options: ParseOptions = {}): EdnValue {
  return new Reader(text, options.maxDepth ?? DEFAULT_MAX_DEPTH).readTop();
}
