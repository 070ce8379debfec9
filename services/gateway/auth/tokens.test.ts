import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bearerOf, createGatewayAuth, loadTokens, LOCAL_PRINCIPAL } from './tokens';
import { isLoopback } from '../config';

describe('gateway tokens', () => {
  test('STRAND_TOKENS maps tokens to principals; a wrong or missing token has none', () => {
    const auth = createGatewayAuth(loadTokens({ STRAND_TOKENS: 'tok-a:alice, tok-b:bob' }));
    expect(auth.enabled).toBe(true);
    expect(auth.principalOf('tok-a')).toBe('alice');
    expect(auth.principalOf('tok-b')).toBe('bob');
    expect(auth.principalOf('tok-c')).toBeUndefined();
    expect(auth.principalOf('tok-a ')).toBeUndefined();
    expect(auth.principalOf(undefined)).toBeUndefined();
  });

  test('STRAND_TOKENS_FILE wins over STRAND_TOKENS; malformed input is an error naming it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-tokens-'));
    const file = path.join(dir, 'tokens.json');
    fs.writeFileSync(file, JSON.stringify({ 'file-token': 'carol' }));
    const auth = createGatewayAuth(loadTokens({ STRAND_TOKENS_FILE: file, STRAND_TOKENS: 'tok-a:alice' }));
    expect(auth.principalOf('file-token')).toBe('carol');
    expect(auth.principalOf('tok-a')).toBeUndefined();
    fs.writeFileSync(file, '["nope"]');
    expect(() => loadTokens({ STRAND_TOKENS_FILE: file })).toThrow(/STRAND_TOKENS_FILE=.*expected/);
    expect(() => loadTokens({ STRAND_TOKENS: 'no-principal' })).toThrow(/not token:principal/);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('no tokens: auth off, everyone is the local principal; loopback addresses are told apart', () => {
    const auth = createGatewayAuth(loadTokens({}));
    expect(auth.enabled).toBe(false);
    expect(auth.principalOf(undefined)).toBe(LOCAL_PRINCIPAL);
    expect(bearerOf('Bearer abc')).toBe('abc');
    expect(bearerOf('Basic abc')).toBeUndefined();
    expect(['127.0.0.1', 'localhost', '::1', '127.1.2.3'].every(isLoopback)).toBe(true);
    expect(['0.0.0.0', '10.0.0.1', '::'].some(isLoopback)).toBe(false);
  });
});
