import { spawn } from 'node:child_process';
import os from 'node:os';
import { LINK_FD, ORPHAN_GRACE_MS, stopOwnGroup, watchLink } from './parent-link';

/**
 * Runs a server binary (nats-server, the Temporal CLI) so that it cannot outlive the stack runner:
 * `node --import tsx watchdog.ts <command> [args…]` (built: dist/services/watchdog.js), started by
 * the runner as the leader of its own process group with the runner's link on fd 3 (see
 * parent-link.ts). The binary runs in the same group. When the link closes, the group gets SIGTERM, then SIGKILL after a grace.
 *
 * Signals sent to the group (how the runner stops a service) reach the binary directly; the
 * watchdog ignores them and exits only once the binary has, with its exit status, so the runner
 * sees the binary's real lifetime.
 */
const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: watchdog.ts <command> [args…]');
  process.exit(2);
}

for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => undefined);

// stdin closed, stdout and stderr shared with us (the runner's pipes); fd 3 stays ours alone.
const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });

child.once('error', (err) => {
  console.error(`failed to start ${command}: ${err.message}`);
  process.exit(127);
});

child.once('exit', (code, signal) => {
  if (signal) {
    // Die the same way, so the runner reports what happened to the binary itself.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }
  process.exit(code ?? 128 + (signal ? os.constants.signals[signal] : 0));
});

watchLink(LINK_FD, () =>
  stopOwnGroup(ORPHAN_GRACE_MS, (sig) => {
    child.kill(sig);
    if (sig === 'SIGKILL') process.exit(137);
  }),
);
