import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeHarness } from '../contract/harness';
import { describeStoreContract } from '../contract/store-contract';
import { fileNameOf } from './file-names';
import { FsStorage } from './fs-storage';

describeStoreContract('fs adapter', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-store-'));
  return makeHarness(() => new FsStorage(dir), {
    async tearLastRecord(sessionId) {
      // A crash in the middle of a write: the last line is cut short.
      const file = path.join(dir, fileNameOf(sessionId));
      const text = fs.readFileSync(file, 'utf8');
      fs.writeFileSync(file, text.slice(0, text.length - 15));
    },
    async cleanup() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  });
}, { tornWrites: true });
