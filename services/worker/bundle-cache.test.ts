import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cachedBundle, withoutSourcesContent } from './bundle-cache';

/** A bundle whose inline source map names `sources`, with their text, as webpack's does. */
function fakeBundle(sources: string[], body = 'code') {
  const all = [...sources, 'webpack/bootstrap'];
  const map = Buffer.from(JSON.stringify({ version: 3, sources: all, sourcesContent: all.map((s) => `text of ${s}`), mappings: 'AAAA' })).toString('base64');
  return { code: `${body}\n//# sourceMappingURL=data:application/json;charset=utf-8;base64,${map}`, sourceMap: '' };
}

const inlineMap = (code: string) => JSON.parse(Buffer.from(code.slice(code.indexOf('base64,', code.lastIndexOf('sourceMappingURL=')) + 7), 'base64').toString('utf8')) as Record<string, unknown>;

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

  test("a file's size and modification time stand for its content once it is older than the record; a recent one is hashed", async () => {
    const file = path.join(dir, 'stamped.ts');
    const opts = { dir: path.join(dir, 'stamp-cache') };
    let builds = 0;
    const build = async () => fakeBundle([file], `build ${++builds}`);
    // Modified an hour before the entry is written: its stamp is trusted, so a same-size rewrite
    // that keeps the time goes unseen (what a stat instead of a hash means).
    const hourAgo = new Date(Date.now() - 3_600_000);
    fs.writeFileSync(file, 'export const b = 1;');
    fs.utimesSync(file, hourAgo, hourAgo);
    expect((await cachedBundle('stamped', build, opts)).fromCache).toBe(false);
    fs.writeFileSync(file, 'export const b = 2;');
    fs.utimesSync(file, hourAgo, hourAgo);
    expect((await cachedBundle('stamped', build, opts)).fromCache).toBe(true);
    // Another time means a hash, and the content is no longer the recorded one.
    fs.utimesSync(file, new Date(), new Date());
    expect((await cachedBundle('stamped', build, opts)).fromCache).toBe(false);
    // Modified just before the entry was written: a rewrite within the clock's granularity could keep
    // size and time, so the content is hashed every time.
    const now = new Date();
    fs.writeFileSync(file, 'export const b = 3;');
    fs.utimesSync(file, now, now);
    expect((await cachedBundle('racy', build, opts)).fromCache).toBe(false);
    fs.writeFileSync(file, 'export const b = 4;');
    fs.utimesSync(file, now, now);
    expect((await cachedBundle('racy', build, opts)).fromCache).toBe(false);
  });

  test('the bundle is kept and handed out without the source texts; its sources and mappings stay', async () => {
    fs.writeFileSync(src, 'export const c = 1;');
    const built = await cachedBundle('slim', async () => fakeBundle([src], 'slim body'), { dir: path.join(dir, 'slim-cache') });
    const cached = await cachedBundle('slim', async () => fakeBundle([src], 'rebuilt'), { dir: path.join(dir, 'slim-cache') });
    expect(cached.fromCache).toBe(true);
    for (const bundle of [built, cached]) {
      expect(bundle.code).toMatch(/^slim body\n\/\/# sourceMappingURL=data:application\/json;charset=utf-8;base64,/);
      expect(inlineMap(bundle.code)).toEqual({ version: 3, sources: [src, 'webpack/bootstrap'], mappings: 'AAAA' });
    }
    expect(withoutSourcesContent('no map at all')).toBe('no map at all');
  });
});
