import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileNameOf, sessionIdOf } from './file-names';
import { FsStorage } from './fs-storage';

const hostile = ['..', '.', '../../etc/passwd', 'a/b', 'x\u0000y', 'spaces and *>', 'ünïcødé 🎉', '%41', 'CON', 'plain-id_1'];

describe('session file names', () => {
  test.each(hostile)('%j maps to a single safe file name and back', (id) => {
    const name = fileNameOf(id);
    expect(name).toMatch(/^(?:[A-Za-z0-9_-]|%[0-9A-F]{2})*\.jsonl$/);
    expect(path.basename(name)).toBe(name);
    expect(sessionIdOf(name)).toBe(id);
  });

  test('distinct ids never share a file', () => {
    const names = new Set(hostile.map(fileNameOf));
    expect(names.size).toBe(hostile.length);
  });

  test('files that are not session logs are ignored', () => {
    expect(sessionIdOf('notes.txt')).toBeUndefined();
    expect(sessionIdOf('bad%zz.jsonl')).toBeUndefined();
  });

  test('a hostile id is stored inside the data dir and survives a reload', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-names-'));
    try {
      const storage = new FsStorage(path.join(dir, 'data'));
      await storage.loadAll();
      await storage.append('../../escape', [{ type: 'leaf', entry_id: 'e' }]);
      expect(fs.readdirSync(dir)).toEqual(['data']);
      const loaded = await storage.loadAll();
      expect([...loaded.sessions.keys()]).toEqual(['../../escape']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
