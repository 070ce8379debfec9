import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cachedBundle } from './bundle-cache';

/** A bundle whose inline source map names `sources`, as webpack's does. */
function fakeBundle(sources: string[], body = 'code') {
  const map = Buffer.from(JSON.stringify({ version: 3, sources: [...sources, 'webpack/bootstrap'] })).toString('base64');
  return { code: `${body}\n//# sourceMappingURL=data:application/json;charset=utf-8;base64,${map}`, sourceMap: '' };
}

describe('the workflow bundle cache', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-bundle-cache-'));
  const src = path.join(dir, 'workflow.ts');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('a second start reuses the bundle; a changed or removed source file rebuilds it', async () => {
    fs.writeFileSync(src, 'export const a = 1;');
    let builds = 0;
    const build = async () => fakeBundle([src], `build ${++builds}`);
    const opts = { dir: path.join(dir, 'cache') };
    expect((await cachedBundle('recipe', build, opts)).fromCache).toBe(false);
    const again = await cachedBundle('recipe', build, opts);
    expect(again.fromCache).toBe(true);
    expect(again.code).toMatch(/^build 1/);
    // Another recipe is another entry.
    expect((await cachedBundle('other recipe', build, opts)).fromCache).toBe(false);

    fs.writeFileSync(src, 'export const a = 2;');
    const changed = await cachedBundle('recipe', build, opts);
    expect(changed.fromCache).toBe(false);
    expect(changed.code).toMatch(/^build 3/);
    fs.rmSync(src);
    expect((await cachedBundle('recipe', build, opts)).fromCache).toBe(false);
  });
});
