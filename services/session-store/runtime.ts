import type { Logger } from '../common/logger';
import type { StoreConfig } from './config';
import type { IdsAndClock } from './domain/ids';
import { SessionStore, type EventSink } from './domain/store';
import type { NatsConnection } from 'nats';
import { natsReplicas } from '../../contracts/nats-replicas';
import { FsStorage } from './storage/fs-storage';
import { JetStreamStorage } from './storage/jetstream-storage';
import type { StoragePort } from './storage/port';

/** What `config-status` answers. */
export interface ConfigStatus {
  last_outcome: 'ok' | 'error';
  last_error?: string;
  rejected_reloads: number;
}

/** Builds the storage adapter a config names. The jetstream adapter uses the service's connection. */
function buildStorage(config: StoreConfig, nc?: NatsConnection): StoragePort {
  if (config.adapter.name === 'fs') return new FsStorage(config.adapter.config.data_dir);
  if (!nc) throw new Error('the jetstream adapter needs a NATS connection');
  const c = config.adapter.config;
  return new JetStreamStorage(nc, {
    ...(c.stream ? { stream: c.stream } : {}),
    ...(c.subject_prefix ? { subjectPrefix: c.subject_prefix } : {}),
    // The configuration file's replicas win; else the deployment-wide STRAND_NATS_REPLICAS.
    replicas: c.replicas ?? natsReplicas(),
  });
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
    private readonly nc?: NatsConnection,
  ) {}

  static async start(
    config: StoreConfig,
    emit: EventSink,
    log: Logger,
    opts: { ids?: IdsAndClock; storage?: StoragePort; nc?: NatsConnection } = {},
  ): Promise<StoreRuntime> {
    const store = new SessionStore(opts.storage ?? buildStorage(config, opts.nc), emit, { ...config }, opts.ids);
    await store.load();
    for (const w of store.loadWarnings) log.warn(w);
    return new StoreRuntime(store, config, emit, log, opts.ids, opts.storage, opts.nc);
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
        const store = new SessionStore(buildStorage(next, this.nc), this.emit, { ...next }, this.ids);
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
