import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { StoreConfig } from './config';
import { StoreRuntime } from './runtime';

const log = pino({ level: 'silent' });
const cfg = (dataDir: string, def = 50, max = 500): StoreConfig => ({ adapter: { name: 'fs', config: { data_dir: dataDir } }, default_list_limit: def, max_list_limit: max });

describe('store configuration reloads', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-runtime-'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  test('new list limits apply in place', async () => {
    const rt = await StoreRuntime.start(cfg(path.join(root, 'a')), () => undefined, log);
    for (let i = 0; i < 5; i++) await rt.store.create({});
    expect(rt.store.list({}).sessions.length).toBe(5);
    expect(await rt.reload(cfg(path.join(root, 'a'), 2, 3))).toEqual({ last_outcome: 'ok', rejected_reloads: 0 });
    expect(rt.store.list({}).sessions.length).toBe(2);
    expect(rt.store.list({ limit: 100 }).sessions.length).toBe(3);
    await rt.close();
  });

  test('a reload that cannot be built keeps the running store and is reported', async () => {
    const rt = await StoreRuntime.start(cfg(path.join(root, 'a')), () => undefined, log);
    const { session_id } = await rt.store.create({ title: 'kept' });
    const notADir = path.join(root, 'file');
    fs.writeFileSync(notADir, 'x');
    const status = await rt.reload(cfg(path.join(notADir, 'sub')));
    expect(status.last_outcome).toBe('error');
    expect(status.rejected_reloads).toBe(1);
    expect(status.last_error).toMatch(/ENOTDIR|EEXIST|not a directory/i);
    expect(rt.store.get({ session_id })!.meta.title).toBe('kept');
    expect((await rt.reload(new Error('invalid store configuration: max_list_limit: too small'))).rejected_reloads).toBe(2);
    expect(rt.configStatus()).toMatchObject({ last_outcome: 'error', last_error: expect.stringMatching(/max_list_limit/) });
    await rt.close();
  });

  test('a new data dir is loaded and swapped in; a later good reload clears the error', async () => {
    const rt = await StoreRuntime.start(cfg(path.join(root, 'a')), () => undefined, log);
    await rt.store.ensure({ session_id: 'in-a' });
    await rt.reload(new Error('bad'));
    const b = await StoreRuntime.start(cfg(path.join(root, 'b')), () => undefined, log);
    await b.store.ensure({ session_id: 'in-b' });
    await b.close();
    expect(await rt.reload(cfg(path.join(root, 'b')))).toEqual({ last_outcome: 'ok', rejected_reloads: 1 });
    expect(rt.store.get({ session_id: 'in-b' })).not.toBeNull();
    expect(rt.store.get({ session_id: 'in-a' })).toBeNull();
    await rt.close();
  });
});
