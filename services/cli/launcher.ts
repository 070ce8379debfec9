import { spawn } from 'node:child_process';
import path from 'node:path';
import { bootstrapAll } from '../../infra/bootstrap/main';
import { type InstanceCounts } from '../../infra/stack/instances';
import { REPO_ROOT } from '../../infra/stack/stack-config';
import { instanceFlags } from './instance-flags';
import { sayError } from './safe-output';

/** The runner's entry point, run by node with tsx's loader (no tsx CLI process in between). */
export const CLI_MAIN = path.join(REPO_ROOT, 'services/cli/main.ts');

/**
 * `strand up`: runs the stack in the foreground until Ctrl-C.
 *
 * This process stays in the terminal's process group, under npm and tsx. A Ctrl-C there signals
 * all of them at once: npm exits immediately, and tsx may SIGKILL a child that is slow to confirm
 * the signal. So the stack is not run here but by a runner (`strand supervise`) in a process group
 * of its own, which the terminal's signals do not reach. This launcher forwards one stop request;
 * if it dies instead, even by SIGKILL, its end of the runner's stdin closes and the runner stops
 * the stack anyway. Output goes straight from the runner to our stdout.
 */
export async function upForeground(instances: InstanceCounts = {}): Promise<void> {
  // Builds binaries on a first run; here, in the terminal's group, Ctrl-C interrupts it as usual.
  await bootstrapAll();
  const runner = spawn(process.execPath, ['--import', 'tsx', CLI_MAIN, 'supervise', ...instanceFlags(instances)], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ['pipe', 'inherit', 'inherit'],
  });
  runner.stdin?.on('error', () => undefined);
  // One stop request is enough: the same Ctrl-C also arrives relayed by tsx, and the runner's stop
  // is bounded in time anyway.
  let forwarded = false;
  const forward = (sig: NodeJS.Signals) => {
    if (forwarded) return;
    forwarded = true;
    // Through the child's handle, not its pid: once the runner has exited, its pid may already be
    // another process's, and ChildProcess.kill sends nothing to a child that has exited.
    try {
      runner.kill(sig);
    } catch {
      // Already gone: its exit ends this process too.
    }
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => forward(sig));

  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    runner.once('error', reject);
    runner.once('exit', (code, signal) => resolve({ code, signal }));
  });
  if (exit.signal) {
    sayError(`[strand] the stack runner (pid ${runner.pid}) was killed by ${exit.signal}; its services stop by themselves`);
    process.exitCode = 1;
  } else {
    process.exitCode = exit.code ?? 1;
  }
}
