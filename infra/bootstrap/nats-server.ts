import fs from 'node:fs';
import path from 'node:path';
import { ensureGoBinary, type GoBinarySpec } from './go-binary';
import { outputOf, say, which } from './run-command';
import { NATS_SERVER_MODULE, NATS_SERVER_VERSION } from './versions';

export const natsServerSpec: GoBinarySpec = {
  name: 'nats-server',
  binary: 'nats-server',
  module: NATS_SERVER_MODULE,
  version: NATS_SERVER_VERSION,
  ldflags: '-s -w',
  versionArgs: ['--version'],
};

/** Records which system nats-server is used when the pinned one cannot be built. */
export function natsFallbackMarker(cacheDir: string): string {
  return path.join(cacheDir, 'nats-server-fallback.path');
}

/**
 * nats-server built from the Go module proxy; when Go is missing or the build fails, a nats-server
 * already on the machine (e.g. Debian's 2.9 package) is used with a warning, since 2.9 lacks
 * everything that needs 2.10 (filter-subject arrays, stream metadata, …).
 */
export async function ensureNatsServer(cacheDir: string): Promise<string> {
  try {
    const built = await ensureGoBinary(cacheDir, natsServerSpec);
    fs.rmSync(natsFallbackMarker(cacheDir), { force: true });
    return built;
  } catch (err) {
    const system = which('nats-server') ?? (fs.existsSync('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : undefined);
    if (!system) {
      throw new Error(`${(err as Error).message}\nno nats-server on the machine either: install Go ≥ 1.25, or Debian's nats-server package as a fallback`);
    }
    const version = outputOf(system, ['--version'])?.trim() ?? 'unknown version';
    say(`WARNING: could not build nats-server ${NATS_SERVER_VERSION} (${(err as Error).message.split('\n')[0]}); using ${system} (${version}). Versions before 2.10 lack features strand may use.`);
    fs.mkdirSync(cacheDir, { recursive: true });
    fs.writeFileSync(natsFallbackMarker(cacheDir), system);
    return system;
  }
}
