import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gatewayAddressFromEnv } from './gateway-address';

test("the token is STRAND_TOKEN, else the stack's generated token when its file can be read", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-address-'));
  try {
    const file = path.join(dir, 'token');
    expect(gatewayAddressFromEnv({ STRAND_GENERATED_TOKEN_FILE: file })).toEqual({ url: 'http://127.0.0.1:9420' }); // not generated yet
    fs.writeFileSync(file, 'generated-token\n');
    expect(gatewayAddressFromEnv({ STRAND_GENERATED_TOKEN_FILE: file, STRAND_URL: 'http://h:1/' })).toEqual({ url: 'http://h:1', token: 'generated-token' });
    expect(gatewayAddressFromEnv({ STRAND_GENERATED_TOKEN_FILE: file, STRAND_TOKEN: 'mine' }).token).toBe('mine');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
