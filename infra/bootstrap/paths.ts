import fs from 'node:fs';
import { cacheRoot } from './cache-dir';
import { goBinaryPath, reportsVersion } from './go-binary';
import { natsFallbackMarker, natsServerSpec } from './nats-server';
import { temporalCliSpec } from './temporal-cli';
import { testServerFiles, testServerReady } from './test-server';

export { NATS_SERVER_VERSION, TEMPORAL_CLI_VERSION, TEST_SERVER_VERSION } from './versions';

/** Where the bootstrapped binaries are. */
export interface BinaryPaths {
  temporal: string;
  natsServer: string;
  testServerWrapper: string;
}

function missing(what: string, where: string): Error {
  return new Error(`${what} is not bootstrapped (looked in ${where}); run \`npm run bootstrap\``);
}

/**
 * The cached binaries, without building anything (the stack runner and tests call this). Throws,
 * naming what is missing, when the bootstrap has not run.
 */
export function binaryPaths(cacheDir: string = cacheRoot()): BinaryPaths {
  const temporal = goBinaryPath(cacheDir, temporalCliSpec);
  if (!fs.existsSync(temporal)) throw missing(`temporal CLI ${temporalCliSpec.version}`, temporal);
  let natsServer = goBinaryPath(cacheDir, natsServerSpec);
  if (!fs.existsSync(natsServer)) {
    const marker = natsFallbackMarker(cacheDir);
    if (!fs.existsSync(marker)) throw missing(`nats-server ${natsServerSpec.version}`, natsServer);
    natsServer = fs.readFileSync(marker, 'utf8').trim();
  }
  const files = testServerFiles(cacheDir);
  if (!testServerReady(files)) throw missing('the Temporal test server', files.dir);
  return { temporal, natsServer, testServerWrapper: files.wrapper };
}

/** Whether the cached temporal CLI still reports the pinned version (used by diagnostics). */
export function temporalCliHealthy(cacheDir: string = cacheRoot()): boolean {
  return reportsVersion(goBinaryPath(cacheDir, temporalCliSpec), temporalCliSpec.versionArgs, temporalCliSpec.version);
}
