import { guardOutput, sayError } from './safe-output';
import { down, status, upDetached, upForeground } from './stack-commands';
import { parseInstanceFlags, upInstanceCounts } from './instance-flags';
import { jobs } from './jobs-commands';
import { supervise } from './supervise';

const USAGE = `usage: strand <command>
  up          start the local stack in the foreground (Ctrl-C stops it)
  up -d       start it in the background (logs in <data dir>/stack.log; \`npm stop\` stops it)
  up --gateways N --workers N --stores N
              run N of each on one Temporal and one NATS (default: 1 gateway, 2 workers, 1 store;
              extra gateways on the next ports;
              stores > 1 use the store's jetstream adapter); see docs/multi-instance.md
  down        stop a running stack, and whatever an earlier, crashed one left running
  status      show whether a stack runs and whether its gateway is healthy
  jobs list | show <id> | cancel <id>
              turns running across sessions (through the gateway; STRAND_GATEWAY_URL to pick one)
  rpc-edn [--cwd DIR] [--session-id ID]
              EDN RPC on stdin/stdout for editors that spawn it (Emacs); logs on stderr
  supervise   (internal) the stack runner that \`up\` starts; add --detached for \`up -d\``;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const detach = rest.includes('-d') || rest.includes('--detach') || rest.includes('--detached');
  switch (command) {
    case 'up': {
      const instances = upInstanceCounts(rest);
      return detach ? upDetached(instances) : upForeground(instances);
    }
    case 'supervise':
      return supervise({ detached: detach, instances: parseInstanceFlags(rest) });
    case 'down':
      return down();
    case 'status':
      return status();
    case 'jobs':
      return jobs(rest);
    case 'rpc-edn':
      // Loaded only here: the other commands do not need the gateway's code.
      return (await import('./rpc-edn')).rpcEdn(rest);
    default:
      sayError(USAGE);
      process.exitCode = 2;
  }
}

guardOutput();
main(process.argv.slice(2)).then(
  // Exit explicitly: the runner's stdin watch and the launcher's pipe would keep the loop alive.
  () => process.exit(),
  (err: unknown) => {
    sayError(`[strand] ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
