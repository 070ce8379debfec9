import { parseCli, UsageError, type CliCommand } from './cli-args';
import { job, jobs } from './job-commands';
import { turns } from './turns-commands';
import { schedule } from './schedule-commands';
import { say, guardOutput, sayError } from './safe-output';
import { down, status, upDetached, upForeground } from './stack-commands';
import { supervise } from './supervise';

async function run(cli: CliCommand): Promise<void> {
  switch (cli.command) {
    case 'help':
      return say(cli.text);
    case 'up':
      return cli.detach ? upDetached(cli.instances) : upForeground(cli.instances);
    case 'supervise':
      return supervise({ detached: cli.detached, instances: cli.instances });
    case 'down':
      return down();
    case 'status':
      return status();
    case 'turns':
      return turns(cli);
    case 'jobs':
      return jobs(cli);
    case 'job':
      process.exitCode = await job(cli);
      return;
    case 'hook':
      return (await import('./hook-commands')).hook(cli);
    case 'schedule':
      return schedule(cli);
    case 'rpc-edn':
      // Loaded only here: the other commands do not need the gateway's code.
      return (await import('./rpc-edn')).rpcEdn(cli);
    case 'chat':
      return (await import('./chat')).chat(cli);
    case 'acp':
      return (await import('./acp')).acpAgent(cli);
  }
}

guardOutput();
new Promise<CliCommand>((resolve) => resolve(parseCli(process.argv.slice(2)))).then(run).then(
  // Exit explicitly: the runner's stdin watch and the launcher's pipe would keep the loop alive.
  () => process.exit(),
  (err: unknown) => {
    if (err instanceof UsageError) {
      sayError(err.message);
      process.exit(2);
    }
    sayError(`[strand] ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
