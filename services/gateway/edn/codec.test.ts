import fc from 'fast-check';
import { EdnEncodeError, EdnSyntaxError, encodeEdn, parseEdn } from './codec';
import { EdnSet, kw, type EdnMap, type EdnValue } from './edn-value';

describe('parseEdn', () => {
  it('reads the frames clients send', () => {
    expect(parseEdn('{:id "req-1" :kind :request :op "handshake" :params {:client-info {:protocol-version "1.0" :features []}}}')).toEqual({
      id: 'req-1',
      kind: kw('request'),
      op: 'handshake',
      params: { 'client-info': { 'protocol-version': '1.0', features: [] } },
    });
  });

  it('reads every value of the subset', () => {
    expect(parseEdn('[nil true false 0 -7 +3 1.5 -2e3 1.25E-2 "s" :a :ns.x/b-c? #{1 2} (1 [2])]')).toEqual([
      null, true, false, 0, -7, 3, 1.5, -2000, 0.0125, 's', kw('a'), kw('ns.x/b-c?'), new EdnSet([1, 2]), [1, [2]],
    ]);
    expect(parseEdn(' ,{:a 1, :b 2}, ')).toEqual({ a: 1, b: 2 });
    expect(parseEdn('{:psi.agent-session/model :ψ}')).toEqual({ 'psi.agent-session/model': kw('ψ') });
  });

  it('decodes string escapes, \\uXXXX included', () => {
    expect(parseEdn('"a\\"b\\\\c\\nd\\te\\rf\\bg\\fh\\u00e9\\u000A"')).toBe('a"b\\c\nd\te\rf\bg\fhé\n');
    expect(parseEdn('"ψ 😀"')).toBe('ψ 😀');
  });

  it('keeps a :__proto__ key as a plain entry', () => {
    const m = parseEdn('{:__proto__ {:polluted true}}') as EdnMap;
    expect(Object.getPrototypeOf(m)).toBe(Object.prototype);
    expect(Object.keys(m)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  const rejected: [string, RegExp][] = [
    ['', /empty frame/],
    ['   ', /empty frame/],
    ['#inst "2024-01-01T00:00:00Z"', /tagged literals/],
    ['#uuid "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"', /tagged literals/],
    ['{:a #_ 1 :b 2}', /discard/],
    ['{:a 1} ; hi', /comments/],
    ['\\a', /character literals/],
    ['[\\newline]', /character literals/],
    ['1/2', /ratios/],
    ['1M', /suffixes/],
    ['7N', /suffixes/],
    ['0x1F', /invalid number/],
    ['007', /invalid number/],
    ['foo', /symbols are not supported/],
    ['{:a foo}', /symbols are not supported/],
    ['{"a" 1}', /keys must be keywords/],
    ['{1 2}', /keys must be keywords/],
    ['{:a 1 :a 2}', /duplicate map key :a/],
    ['{:a}', /has no value/],
    ['#{1 1}', /duplicate item in set/],
    ['{:a 1} {:b 2}', /unexpected text after the value/],
    ['{:a 1}}', /unexpected text/],
    ['{:a 1', /not closed/],
    ['[1 2', /not closed/],
    ['"abc', /not closed/],
    ['"\\q"', /unknown string escape/],
    ['"\\u12"', /four hex digits/],
    ['::auto', /auto-resolved/],
    [':', /invalid keyword/],
    [':a/b/c', /invalid keyword/],
    ['##Inf', /symbolic values/],
    ["'a", /reader macro/],
    ['99999999999999999999', /out of range/],
    ['1e999', /out of range/],
    [']', /unexpected "]"/],
  ];
  it.each(rejected)('refuses %j', (text, message) => {
    expect(() => parseEdn(text)).toThrow(EdnSyntaxError);
    expect(() => parseEdn(text)).toThrow(message);
  });

  it('names the column of the problem', () => {
    try {
      parseEdn('{:a #foo 1}');
      throw new Error('parsed');
    } catch (err) {
      expect(err).toBeInstanceOf(EdnSyntaxError);
      expect((err as EdnSyntaxError).column).toBe(5);
      expect((err as Error).message).toBe('tagged literals are not supported at column 5');
    }
  });

  it('limits nesting depth', () => {
    expect(parseEdn(`${'['.repeat(64)}${']'.repeat(64)}`)).toBeDefined();
    expect(() => parseEdn(`${'['.repeat(65)}${']'.repeat(65)}`)).toThrow(/nesting deeper than 64/);
    expect(() => parseEdn('['.repeat(100_000))).toThrow(/nesting deeper/);
    expect(() => parseEdn('{:a {:b 1}}', { maxDepth: 1 })).toThrow(/nesting deeper than 1/);
  });
});

describe('encodeEdn', () => {
  it('writes maps with keyword keys and leaves undefined out', () => {
    expect(encodeEdn({ kind: kw('response'), id: 'r1', ok: true, data: { 'session-id': 's', gone: undefined, n: null } })).toBe(
      '{:kind :response :id "r1" :ok true :data {:session-id "s" :n nil}}',
    );
    expect(encodeEdn([1, 2.5, -0, new EdnSet([kw('a')]), 'x'])).toBe('[1 2.5 0 #{:a} "x"]');
  });

  it('writes dates as ISO strings, never tagged literals', () => {
    expect(encodeEdn({ ts: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)) })).toBe('{:ts "2026-01-02T03:04:05.006Z"}');
  });

  it('never writes a raw newline or control character', () => {
    const text = encodeEdn({ text: 'a\nb\r\u0000\u001b\u2028\u007f"\\' });
    expect(text).toBe('{:text "a\\nb\\r\\u0000\\u001B\\u2028\\u007F\\"\\\\"}');
    expect(parseEdn(text)).toEqual({ text: 'a\nb\r\u0000\u001b\u2028\u007f"\\' });
  });

  it('refuses what has no EDN form', () => {
    expect(() => encodeEdn(NaN)).toThrow(EdnEncodeError);
    expect(() => encodeEdn({ n: Infinity })).toThrow(EdnEncodeError);
    expect(() => encodeEdn({ 'bad key': 1 })).toThrow(/not a valid keyword/);
    expect(() => encodeEdn(kw('a b'))).toThrow(/not a valid keyword/);
    expect(() => encodeEdn(() => 1)).toThrow(/function/);
    expect(() => encodeEdn(new Map())).toThrow(/Map/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => encodeEdn(cyclic)).toThrow(/cycle/);
  });

  it('replaces lone surrogates, keeps pairs', () => {
    expect(encodeEdn('\ud800x\udc00😀')).toBe('"\ufffdx\ufffd😀"');
  });
});

/** Values of the model, as the encoder writes them and the reader reads them. */
const keywordName = fc.stringMatching(/^[a-z][a-z0-9.*+!_?<>=-]{0,8}(\/[a-z][a-z0-9-]{0,6})?$/);
const ednValue: fc.Arbitrary<EdnValue> = fc.letrec<{ value: EdnValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => (Object.is(d, -0) ? 0 : d)),
    fc.string({ unit: 'grapheme' }),
    fc.string({ unit: 'binary' }),
    keywordName.map(kw),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.uniqueArray(fc.oneof(fc.integer(), fc.string(), keywordName.map(kw)), {
      maxLength: 5,
      selector: (v) => (typeof v === 'object' ? `:${v.name}` : JSON.stringify(v)),
    }).map((items) => new EdnSet(items)),
    fc.dictionary(keywordName, tie('value'), { maxKeys: 5 }),
  ),
})).value;

describe('round trip', () => {
  it('parseEdn(encodeEdn(v)) equals v, on one line', () => {
    fc.assert(
      fc.property(ednValue, (value) => {
        const text = encodeEdn(value);
        expect(text).not.toMatch(/[\n\r]/);
        expect(parseEdn(text)).toEqual(value);
      }),
      { numRuns: 2_000 },
    );
  });

  it('never throws anything but EdnSyntaxError on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        try {
          parseEdn(text);
        } catch (err) {
          expect(err).toBeInstanceOf(EdnSyntaxError);
        }
      }),
      { numRuns: 5_000 },
    );
  });
});
