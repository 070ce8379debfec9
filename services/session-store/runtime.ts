import type { Logger } from '../common/logger';
import type { StoreConfig } from './config';
import type { IdsAndClock } from './domain/ids';
import { SessionStore, type EventSink } from './domain/store';
import { FsStorage } from './storage/fs-storage';
import type { StoragePort } from './storage/port';

/** What `config-status` answers. */
export interface ConfigStatus {
  last_outcome: 'ok' | 'error';
  last_error?: string;
  rejected_reloads: number;
}

/** Builds the storage adapter a config names, or fails with a readable reason. */
export function buildStorage(config: StoreConfig): StoragePort {
  if (config.adapter.name === 'fs') return new FsStorage(config.adapter.config.data_dir);
  throw new Error('the jetstream store adapter is not part of this build yet; use adapter fs');
}

function sameAdapter(a: StoreConfig['adapter'], b: StoreConfig['adapter']): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The running store and its configuration. A reload that changes only the list limits swaps them in
 * place; one that changes the adapter builds and loads a new store first and swaps only if that
 * worked. A reload that cannot be built keeps the running store and is reported by config-status.
 */
export class StoreRuntime {
  private status: ConfigStatus = { last_outcome: 'ok', rejected_reloads: 0 };

  private constructor(
    private current: SessionStore,
    private config: StoreConfig,
    private readonly emit: EventSink,
    private readonly log: Logger,
    private readonly ids?: IdsAndClock,
    private readonly storageOverride?: StoragePort,
  ) {}

  static async start(config: StoreConfig, emit: EventSink, log: Logger, ids?: IdsAndClock, storage?: StoragePort): Promise<StoreRuntime> {
    const store = new SessionStore(storage ?? buildStorage(config), emit, { ...config }, ids);
    await store.load();
    for (const w of store.loadWarnings) log.warn(w);
    return new StoreRuntime(store, config, emit, log, ids, storage);
  }

  get store(): SessionStore {
    return this.current;
  }

  configStatus(): ConfigStatus {
    return { ...this.status };
  }

  /** Applies a new configuration (or the error of reading one); never throws. */
  async reload(next: StoreConfig | Error): Promise<ConfigStatus> {
    try {
      if (next instanceof Error) throw next;
      if (sameAdapter(next.adapter, this.config.adapter) || this.storageOverride) {
        this.current.limits.default_list_limit = next.default_list_limit;
        this.current.limits.max_list_limit = next.max_list_limit;
      } else {
        const store = new SessionStore(buildStorage(next), this.emit, { ...next }, this.ids);
        await store.load();
        for (const w of store.loadWarnings) this.log.warn(w);
        const old = this.current;
        this.current = store;
        await old.storage.close();
      }
      this.config = next;
      this.status = { last_outcome: 'ok', rejected_reloads: this.status.rejected_reloads };
      this.log.info({ adapter: next.adapter.name }, 'configuration reloaded');
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.status = { last_outcome: 'error', last_error: message, rejected_reloads: this.status.rejected_reloads + 1 };
      this.log.warn({ err: message }, 'configuration reload rejected; the running store is kept');
    }
    return this.configStatus();
  }

  async close(): Promise<void> {
    await this.current.storage.close();
  }
}
