import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GENERATED_TOKEN_PRINCIPAL, readOrCreateToken } from './generated-token';
import { createGatewayAuth, loadTokens } from './tokens';

describe('generated gateway token (STRAND_GENERATED_TOKEN_FILE)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-gen-token-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('the first start creates a private file with a fresh token and prints it once; later starts read it and never print it', () => {
    const file = path.join(dir, 'state', 'gateway-token');
    const first: string[] = [];
    const token = readOrCreateToken(file, (l) => first.push(l));
    expect(token).toMatch(/^strand_[A-Za-z0-9_-]{43}$/);
    expect(fs.readFileSync(file, 'utf8')).toBe(`${token}\n`);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(first).toHaveLength(1);
    expect(first[0]).toContain(token);
    expect(first[0]).toContain(file);

    const later: string[] = [];
    expect(readOrCreateToken(file, (l) => later.push(l))).toBe(token);
    expect(later).toHaveLength(1);
    expect(later[0]).not.toContain(token);
    expect(later[0]).toContain(file);
    // Only the token file is left behind: no partial files.
    expect(fs.readdirSync(path.dirname(file))).toEqual(['gateway-token']);
  });

  test('two files get two different tokens', () => {
    const a = readOrCreateToken(path.join(dir, 'a'), () => undefined);
    const b = readOrCreateToken(path.join(dir, 'b'), () => undefined);
    expect(a).not.toBe(b);
  });

  test('a token written by someone else is kept as it is; an empty or multi-word file is an error naming it', () => {
    const file = path.join(dir, 'gateway-token');
    fs.writeFileSync(file, '  chosen-by-hand \n');
    expect(readOrCreateToken(file, () => undefined)).toBe('chosen-by-hand');
    fs.writeFileSync(file, '\n');
    expect(() => readOrCreateToken(file, () => undefined)).toThrow(`STRAND_GENERATED_TOKEN_FILE=${file}: expected one token`);
    fs.writeFileSync(file, 'two tokens');
    expect(() => readOrCreateToken(file, () => undefined)).toThrow(/delete the file/);
  });

  test('loadTokens uses the generated token only when neither STRAND_TOKENS_FILE nor STRAND_TOKENS is set', () => {
    const file = path.join(dir, 'gateway-token');
    const silent = () => undefined;
    const generated = loadTokens({ STRAND_GENERATED_TOKEN_FILE: file }, silent);
    const token = fs.readFileSync(file, 'utf8').trim();
    expect([...generated]).toEqual([[token, GENERATED_TOKEN_PRINCIPAL]]);
    expect(createGatewayAuth(generated).principalOf(token)).toBe(GENERATED_TOKEN_PRINCIPAL);

    expect([...loadTokens({ STRAND_GENERATED_TOKEN_FILE: file, STRAND_TOKENS: 'mine:alice' }, silent)]).toEqual([['mine', 'alice']]);
    const json = path.join(dir, 'tokens.json');
    fs.writeFileSync(json, JSON.stringify({ 'from-file': 'carol' }));
    expect([...loadTokens({ STRAND_GENERATED_TOKEN_FILE: file, STRAND_TOKENS_FILE: json }, silent)]).toEqual([['from-file', 'carol']]);
  });

  test('without STRAND_GENERATED_TOKEN_FILE nothing is generated (npm start keeps auth off)', () => {
    const lines: string[] = [];
    expect(loadTokens({}, (l) => lines.push(l)).size).toBe(0);
    expect(lines).toEqual([]);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
