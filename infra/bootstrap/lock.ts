import fs from 'node:fs';
import path from 'node:path';
import { pidExists } from '../stack/proc-table';
import { say } from './run-command';

/**
 * Holds an exclusive lock on the cache while `fn` runs, so two bootstraps at once (`npm start` in one
 * terminal, `npm test` in another) never build into the same place. A lock left by a dead process is
 * taken over.
 */
export async function withCacheLock<T>(cacheDir: string, fn: () => Promise<T>, timeoutMs = 30 * 60_000): Promise<T> {
  fs.mkdirSync(cacheDir, { recursive: true });
  const lock = path.join(cacheDir, 'bootstrap.lock');
  const deadline = Date.now() + timeoutMs;
  let announced = false;
  for (;;) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(fs.readFileSync(lock, 'utf8').trim());
      if (!Number.isInteger(holder) || holder <= 0 || !pidExists(holder)) {
        fs.rmSync(lock, { force: true });
        continue;
      }
      if (!announced) say(`waiting for another bootstrap (pid ${holder}) to finish…`);
      announced = true;
      if (Date.now() > deadline) throw new Error(`another bootstrap (pid ${holder}) holds ${lock} for too long`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}
