import { runtimeEnv } from '../common/env';
import { createLogger } from '../common/logger';
import { connectNats } from '../common/nats';
import { onShutdown } from '../common/shutdown';
import { loadStoreConfig } from './config';
import { startStoreService } from './service';
import { DEFAULT_SESSIONS_STREAM } from './storage/jetstream-storage';

/** The session store process (`npm run start:store`). */
async function main(): Promise<void> {
  const env = runtimeEnv();
  const log = createLogger('store', env.logLevel);
  const config = loadStoreConfig();
  const nc = await connectNats(env.natsUrl, 'strand-session-store');
  const running = await startStoreService({ nc, config, log });
  // SIGHUP re-reads the configuration; a config that cannot be built keeps the running store.
  process.on('SIGHUP', () => {
    let next: ReturnType<typeof loadStoreConfig> | Error;
    try {
      next = loadStoreConfig();
    } catch (err) {
      next = err instanceof Error ? err : new Error(String(err));
    }
    void running.runtime.reload(next);
  });
  onShutdown(async () => {
    await running.stop();
    await nc.drain();
  }, (m) => log.info(m));
  const where = config.adapter.name === 'fs' ? ` data_dir=${config.adapter.config.data_dir}` : ` stream=${config.adapter.config.stream ?? DEFAULT_SESSIONS_STREAM}`;
  console.log(`[store] ready adapter=${config.adapter.name}${where} sessions=${running.store.size}`);
}

main().catch((err: unknown) => {
  console.error(`[store] fatal: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
