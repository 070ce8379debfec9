import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileNameOf } from './file-names';
import { FsStorage } from './fs-storage';

const meta = (id: string) => ({ type: 'meta' as const, meta: { session_id: id, title: id, description: '', status: 'idle' as const, created_at: 1, updated_at: 1, message_count: 0 } });

test('a session file that cannot be read is a failure, not "no such session"; a missing one is none', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-fs-load-'));
  const storage = new FsStorage(dir);
  try {
    await storage.append('kept', [meta('kept')]);
    expect(await storage.loadOne('kept')).toEqual([meta('kept')]);
    expect(await storage.loadOne('never-written')).toBeUndefined();
    // A read that fails for another reason than a missing file (here EISDIR; EIO or EMFILE alike).
    await storage.append('broken', [meta('broken')]);
    const file = path.join(dir, fileNameOf('broken'));
    await storage.close();
    fs.rmSync(file);
    fs.mkdirSync(file);
    await expect(new FsStorage(dir).loadOne('broken')).rejects.toMatchObject({ code: 'EISDIR' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
