/**
 * Test fixture (run as its own process by shell-exec.test.ts): plays a worker that starts a long
 * shell command and is then killed, to show the command does not outlive it.
 */
import os from 'node:os';
import { createToolExecutor } from './index';

const workspace = process.argv[2]!;
const executor = createToolExecutor({ spillDir: os.tmpdir() });
void executor.execute(
  'shell_exec',
  { command: 'echo pgid=$(ps -o pgid= -p $$ | tr -d " "); sleep 60', timeout_s: 120 },
  { workspace, signal: new AbortController().signal, onOutput: (c) => process.stdout.write(c) },
);
