import { down, status, upDetached, upForeground } from './stack-commands';

const USAGE = `usage: strand <command>
  up        start the local stack in the foreground (Ctrl-C stops it)
  up -d     start it in the background (logs in <data dir>/stack.log)
  down      stop a running stack
  status    show whether a stack runs and whether its gateway is healthy`;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'up':
      return rest.includes('-d') || rest.includes('--detach') ? upDetached() : upForeground();
    case 'down':
      return down();
    case 'status':
      return status();
    default:
      console.error(USAGE);
      process.exitCode = 2;
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(`[strand] ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
