import fs from 'node:fs';
import fsp, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { fileNameOf, sessionIdOf } from './file-names';
import type { LoadResult, LogRecord, StoragePort } from './port';

/**
 * The fs adapter: one append-only JSONL file per session under `dataDir`.
 *
 * Durability (fsync policy): a write resolves only after fdatasync(2) of its file (and, for a new
 * file, fsync of the directory), so no reply is sent for data a power cut could lose. Writes to one
 * session that arrive while its previous fsync runs are gathered into the next single write + fsync
 * (group commit): a busy session pays one fsync per batch, not per append. Up to MAX_OPEN files stay
 * open (least recently used closed first), so 10,000 sessions never exhaust descriptors.
 *
 * Replay: lines are parsed in order; a line that is not valid JSON or not a record is skipped and
 * reported (a torn last line after a crash is the expected case; a damaged middle line is reported
 * the same way and the rest of the file still loads). A write after a torn line starts on a new line.
 */
const MAX_OPEN = 64;

interface Pending {
  data: string;
  resolve: () => void;
  reject: (err: unknown) => void;
}

interface Writer {
  handle?: FileHandle;
  queue: Pending[];
  writing: boolean;
  /** Set when a write failed: later writes fail until the session is reloaded (`loadOne`). */
  failed?: Error;
}

export class FsStorage implements StoragePort {
  readonly name = 'fs';
  private readonly writers = new Map<string, Writer>();

  constructor(readonly dataDir: string) {}

  private fileOf(sessionId: string): string {
    return path.join(this.dataDir, fileNameOf(sessionId));
  }

  async loadAll(): Promise<LoadResult> {
    await fsp.mkdir(this.dataDir, { recursive: true });
    const sessions = new Map<string, LogRecord[]>();
    const warnings: string[] = [];
    for (const name of await fsp.readdir(this.dataDir)) {
      const id = sessionIdOf(name);
      if (id === undefined) continue;
      const records = parseLog(name, await fsp.readFile(path.join(this.dataDir, name), 'utf8'), warnings);
      if (records.length > 0) sessions.set(id, records);
    }
    return { sessions, warnings };
  }

  async loadOne(sessionId: string): Promise<LogRecord[] | undefined> {
    const w = this.writers.get(sessionId);
    if (w && !w.writing) {
      await w.handle?.close().catch(() => undefined);
      this.writers.delete(sessionId);
    } else if (w) {
      w.failed = undefined;
    }
    let text: string;
    try {
      text = await fsp.readFile(this.fileOf(sessionId), 'utf8');
    } catch (err) {
      // Only a missing file is "no such session"; a file that cannot be read now (EIO, EMFILE, EACCES)
      // is a failure, so the session is not taken for gone (the caller answers session/storage).
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    const records = parseLog(fileNameOf(sessionId), text, []);
    return records.length > 0 ? records : undefined;
  }

  append(sessionId: string, records: LogRecord[]): Promise<void> {
    let w = this.writers.get(sessionId);
    if (!w) {
      w = { queue: [], writing: false };
      this.writers.set(sessionId, w);
    } else {
      // Most recently used goes last, so eviction takes the oldest.
      this.writers.delete(sessionId);
      this.writers.set(sessionId, w);
    }
    if (w.failed) return Promise.reject(w.failed);
    const data = records.map((r) => JSON.stringify(r)).join('\n') + '\n';
    const writer = w;
    return new Promise<void>((resolve, reject) => {
      writer.queue.push({ data, resolve, reject });
      if (!writer.writing) void this.drain(sessionId, writer);
    });
  }

  private async drain(sessionId: string, w: Writer): Promise<void> {
    w.writing = true;
    while (w.queue.length > 0) {
      const batch = w.queue.splice(0);
      try {
        const isNew = !w.handle && !fs.existsSync(this.fileOf(sessionId));
        const handle = w.handle ?? (await this.open(sessionId, w));
        await handle.write(batch.map((p) => p.data).join(''));
        await handle.datasync();
        if (isNew) await this.syncDir();
        for (const p of batch) p.resolve();
      } catch (err) {
        w.failed = err instanceof Error ? err : new Error(String(err));
        for (const p of [...batch, ...w.queue.splice(0)]) p.reject(w.failed);
        await w.handle?.close().catch(() => undefined);
        w.handle = undefined;
      }
    }
    w.writing = false;
    await this.evict();
  }

  /** Opens a session's file for appending, starting a new line if a crash left a torn one. */
  private async open(sessionId: string, w: Writer): Promise<FileHandle> {
    const handle = await fsp.open(this.fileOf(sessionId), 'a+');
    const { size } = await handle.stat();
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) await handle.write('\n');
    }
    w.handle = handle;
    return handle;
  }

  /** Closes idle files beyond MAX_OPEN, least recently used first. */
  private async evict(): Promise<void> {
    let open = 0;
    for (const w of this.writers.values()) if (w.handle) open++;
    for (const [id, w] of this.writers) {
      if (open <= MAX_OPEN) break;
      if (w.writing || !w.handle) continue;
      const h = w.handle;
      w.handle = undefined;
      open--;
      if (!w.failed) this.writers.delete(id);
      await h.close().catch(() => undefined);
    }
  }

  async remove(sessionId: string): Promise<void> {
    const w = this.writers.get(sessionId);
    if (w) {
      while (w.writing) await new Promise((r) => setTimeout(r, 1));
      await w.handle?.close().catch(() => undefined);
      this.writers.delete(sessionId);
    }
    await fsp.rm(this.fileOf(sessionId), { force: true });
    await this.syncDir();
  }

  private async syncDir(): Promise<void> {
    const dir = await fsp.open(this.dataDir, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }

  async close(): Promise<void> {
    for (const w of this.writers.values()) {
      while (w.writing) await new Promise((r) => setTimeout(r, 1));
      await w.handle?.close().catch(() => undefined);
    }
    this.writers.clear();
  }
}

/** Parses one session file, skipping (and reporting) lines that are not records. */
function parseLog(name: string, text: string, warnings: string[]): LogRecord[] {
  const records: LogRecord[] = [];
  const lines = text.split('\n');
  const lastIndex = lines[lines.length - 1] === '' ? lines.length - 2 : lines.length - 1;
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      const rec = JSON.parse(line) as LogRecord;
      if (rec && (rec.type === 'meta' || rec.type === 'entry' || rec.type === 'leaf')) {
        records.push(rec);
        return;
      }
    } catch {
      // Reported below.
    }
    warnings.push(`${name}: skipped unreadable ${i === lastIndex ? 'last line (torn write?)' : `line ${i + 1}`}`);
  });
  return records;
}
