import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { fileNameOf, sessionIdOf } from './file-names';
import type { LoadResult, LogRecord, StoragePort } from './port';

/**
 * The fs adapter: one append-only JSONL file per session under `dataDir`.
 *
 * Durability (fsync policy): every `append` writes its records with one write(2) and calls
 * fdatasync(2) before resolving, so a reply is only sent for data that survives a power cut. A new
 * file's directory entry is fsynced too. Files are opened per append (no descriptor is held), so
 * 10,000 sessions never exhaust file descriptors.
 *
 * Replay: lines are parsed in order; a line that is not valid JSON or not a record is skipped and
 * reported (a torn last line after a crash is the expected case; a damaged middle line is reported
 * the same way and the rest of the file still loads).
 */
export class FsStorage implements StoragePort {
  readonly name = 'fs';

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
      const text = await fsp.readFile(path.join(this.dataDir, name), 'utf8');
      const records: LogRecord[] = [];
      const lines = text.split('\n');
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
        const where = i === lines.length - 1 || (i === lines.length - 2 && lines[lines.length - 1] === '') ? 'last line (torn write?)' : `line ${i + 1}`;
        warnings.push(`${name}: skipped unreadable ${where}`);
      });
      if (records.length > 0) sessions.set(id, records);
    }
    return { sessions, warnings };
  }

  async append(sessionId: string, records: LogRecord[]): Promise<void> {
    const file = this.fileOf(sessionId);
    const data = records.map((r) => JSON.stringify(r)).join('\n') + '\n';
    const isNew = !fs.existsSync(file);
    const handle = await fsp.open(file, 'a+');
    try {
      // A previous crash may have left a torn line without its newline: start on a fresh line.
      const { size } = await handle.stat();
      let prefix = '';
      if (size > 0) {
        const last = Buffer.alloc(1);
        await handle.read(last, 0, 1, size - 1);
        if (last[0] !== 0x0a) prefix = '\n';
      }
      await handle.write(prefix + data);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    if (isNew) await this.syncDir();
  }

  async remove(sessionId: string): Promise<void> {
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

  async close(): Promise<void> {}
}
