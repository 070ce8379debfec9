import { cacheRoot } from './cache-dir';
import { withCacheLock } from './lock';
import { ensureNatsServer } from './nats-server';
import type { BinaryPaths } from './paths';
import { say } from './run-command';
import { ensureTemporalCli } from './temporal-cli';
import { ensureTestServer } from './test-server';

/**
 * Makes sure every external binary is built and cached: the Temporal CLI, nats-server and the Java
 * time-skipping test server. Idempotent and fast when everything is cached. The Go builds run one
 * after the other (each takes both cores); Maven, mostly waiting on I/O, runs beside them.
 */
export async function bootstrapAll(cacheDir: string = cacheRoot()): Promise<BinaryPaths> {
  const started = Date.now();
  const paths = await withCacheLock(cacheDir, async () => {
    const testServer = ensureTestServer(cacheDir);
    // Attach a handler now so a Maven failure during the Go builds is not reported as unhandled.
    testServer.catch(() => undefined);
    const temporal = await ensureTemporalCli(cacheDir);
    const natsServer = await ensureNatsServer(cacheDir);
    return { temporal, natsServer, testServerWrapper: await testServer };
  });
  say(`all binaries ready in ${((Date.now() - started) / 1000).toFixed(1)} s (cache ${cacheDir})`);
  return paths;
}

if (require.main === module) {
  bootstrapAll().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(`[bootstrap] FAILED: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
