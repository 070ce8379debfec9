import fs from 'node:fs';
import path from 'node:path';

/**
 * How many times a scripted step has been called, so a script can fail "only the first time" and a
 * retry then succeeds. The provider is stateless across processes (a retry may land on another
 * worker, or on a restarted one), so counts can live in a folder: each call claims the file
 * `<key>-<n>` with an exclusive create, which is atomic across processes. Without a folder, counts
 * live in this process's memory (enough for single-worker stacks and unit tests).
 */
export interface CallCounter {
  /** Records one more call for `key` and returns its number (1 for the first). */
  next(key: string): Promise<number>;
}

export function memoryCallCounter(): CallCounter {
  const counts = new Map<string, number>();
  return {
    async next(key) {
      const n = (counts.get(key) ?? 0) + 1;
      counts.set(key, n);
      return n;
    },
  };
}

export function dirCallCounter(dir: string): CallCounter {
  return {
    async next(key) {
      await fs.promises.mkdir(dir, { recursive: true });
      for (let n = 1; ; n++) {
        try {
          const handle = await fs.promises.open(path.join(dir, `${key}-${n}`), 'wx');
          await handle.close();
          return n;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        }
      }
    },
  };
}
