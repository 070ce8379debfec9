import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Content-addressed file contents: a blob's name is the sha256 of its bytes, so the same content is
 * kept once however many checkpoints name it, and a blob once written never changes (a retried write
 * of the same content is a no-op).
 */
export class BlobStore {
  constructor(readonly dir: string) {}

  static digest(bytes: Buffer): string {
    return createHash('sha256').update(bytes).digest('hex');
  }

  pathOf(sha256: string): string {
    return path.join(this.dir, sha256.slice(0, 2), sha256);
  }

  /** Keeps `bytes`, answering their sha256. Written to a temporary name then renamed: never half a blob. */
  async put(bytes: Buffer): Promise<string> {
    const sha = BlobStore.digest(bytes);
    const target = this.pathOf(sha);
    if (await exists(target)) return sha;
    await fs.mkdir(path.dirname(target), { recursive: true });
    const tmp = `${target}.${randomUUID().slice(0, 8)}.tmp`;
    await fs.writeFile(tmp, bytes);
    await fs.rename(tmp, target);
    return sha;
  }

  async has(sha256: string): Promise<boolean> {
    return /^[0-9a-f]{64}$/.test(sha256) && exists(this.pathOf(sha256));
  }

  async get(sha256: string): Promise<Buffer> {
    return fs.readFile(this.pathOf(sha256));
  }

  /** Every blob's sha256 with its size and last write (for pruning). */
  async *entries(): AsyncGenerator<{ sha256: string; size: number; mtimeMs: number }> {
    const shards = await fs.readdir(this.dir).catch(() => [] as string[]);
    for (const shard of shards) {
      const names = await fs.readdir(path.join(this.dir, shard)).catch(() => [] as string[]);
      for (const name of names) {
        if (!/^[0-9a-f]{64}$/.test(name)) continue;
        const st = await fs.stat(path.join(this.dir, shard, name)).catch(() => undefined);
        if (st) yield { sha256: name, size: st.size, mtimeMs: st.mtimeMs };
      }
    }
  }

  async remove(sha256: string): Promise<void> {
    await fs.rm(this.pathOf(sha256), { force: true });
  }
}

async function exists(p: string): Promise<boolean> {
  return fs.stat(p).then(
    () => true,
    () => false,
  );
}
