import { ensureGoBinary, type GoBinarySpec } from './go-binary';
import { TEMPORAL_CLI_MODULE, TEMPORAL_CLI_VERSION } from './versions';

/** The Temporal CLI: dev server (SQLite) with the embedded Web UI. Release ldflags stamp the version. */
export const temporalCliSpec: GoBinarySpec = {
  name: 'temporal-cli',
  binary: 'temporal',
  module: TEMPORAL_CLI_MODULE,
  version: TEMPORAL_CLI_VERSION,
  ldflags: `-s -w -X github.com/temporalio/cli/temporalcli.Version=${TEMPORAL_CLI_VERSION}`,
  versionArgs: ['--version'],
};

export function ensureTemporalCli(cacheDir: string): Promise<string> {
  return ensureGoBinary(cacheDir, temporalCliSpec);
}
