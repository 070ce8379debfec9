import { createRequire } from 'node:module';
import * as nodeModule from 'node:module';
import path from 'node:path';
import { LINK_ENV, ORPHAN_GRACE_MS, stopOwnGroup, watchLink } from './parent-link';

/**
 * Starts a service of the stack: `node --import tsx service-entry.ts <service main.ts>` from source, or
 * `node dist/services/service-entry.js dist/services/<service>.js` built (stack-specs.ts).
 * First it watches the runner's link (parent-link.ts), so that when the runner dies without
 * stopping us (SIGKILL, crash) the service stops itself through its own SIGTERM handler and no
 * orphan keeps a port; then it loads the service, in this same process.
 *
 * Not a `--import` preload: execArgv is inherited by worker threads (the Temporal SDK runs
 * workflows in one), where tsx's loader is not active and a .ts preload fails to load.
 */
const [entry, ...rest] = process.argv.slice(2);
if (!entry) {
  console.error('usage: service-entry <service main> [args…]');
  process.exit(2);
}
const fd = Number(process.env[LINK_ENV]);
// The duty is this process's alone: what it starts must not take its own fd 3 for a link.
delete process.env[LINK_ENV];
if (Number.isInteger(fd) && fd > 2) watchLink(fd, () => stopOwnGroup(ORPHAN_GRACE_MS));
// The service sees the command line it would have had if started directly.
const main = path.resolve(entry);
process.argv = [process.argv[0] ?? process.execPath, main, ...rest];
// Node 22.1 and later keep V8's compiled code of every module on disk between starts (most of a start
// is compiling node_modules); Node 20 has no such cache and skips this.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
// A built service (dist/services/*.js) is CommonJS: require() runs it at once, where import() would
// first scan the whole bundle for its exports. The TypeScript sources go through tsx's loader.
if (main.endsWith('.js')) createRequire(__filename)(main);
else void import(main);
