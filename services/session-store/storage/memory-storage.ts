import type { LoadResult, LogRecord, StoragePort } from './port';

/** In-memory storage for unit tests of the domain; same contract as the fs adapter, no durability. */
export class MemoryStorage implements StoragePort {
  readonly name = 'memory';
  readonly logs = new Map<string, LogRecord[]>();

  async loadAll(): Promise<LoadResult> {
    return { sessions: new Map([...this.logs].map(([k, v]) => [k, structuredClone(v)])), warnings: [] };
  }

  async loadOne(sessionId: string): Promise<LogRecord[] | undefined> {
    const log = this.logs.get(sessionId);
    return log ? structuredClone(log) : undefined;
  }

  async append(sessionId: string, records: LogRecord[]): Promise<void> {
    const log = this.logs.get(sessionId) ?? [];
    log.push(...structuredClone(records));
    this.logs.set(sessionId, log);
  }

  async remove(sessionId: string): Promise<void> {
    this.logs.delete(sessionId);
  }

  async close(): Promise<void> {}
}
