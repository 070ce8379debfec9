import { StringDecoder } from 'node:string_decoder';
import type { ShellExecParams } from '../../contracts/tools';
import { OutputSink } from './output-sink';
import { workspaceRoot } from './paths';
import { spawnGroup } from './process-group';

/**
 * The command runs under a guard in its own process group: if the worker running it dies (a crash,
 * kill -9), the guard notices within a second and kills the whole group, so no command outlives the
 * worker that started it (the turn reports it as interrupted and never runs it again). The guard waits
 * with bash's `read -t` on a pipe of its own: no extra process, no delay for the command's result.
 */
const GUARDED = [
  'guard() { exec 9<> <(:); while kill -0 "$STRAND_WORKER_PID" 2>/dev/null; do read -t 1 -u 9; done; kill -KILL 0; }',
  'guard </dev/null >/dev/null 2>&1 & g=$!',
  'unset -f guard',
  'bash -c "$STRAND_SHELL_COMMAND"; rc=$?',
  'kill "$g" 2>/dev/null',
  'exit $rc',
].join('\n');
import { fail, ok, type ToolContext, type ToolResult, type ToolSettings } from './types';

/**
 * shell_exec: `bash -c command` in the workspace root, in its own process group so a timeout or an
 * abort kills everything the command started (background jobs, test runners' workers), not just bash.
 * Output (stdout and stderr interleaved as they arrive) streams to `onOutput`, goes in full to a
 * spill file, and the result keeps its head and tail. A non-zero exit is an error result; an abort
 * throws the signal's reason once the group is gone.
 */
export async function shellExec(params: ShellExecParams, ctx: ToolContext, settings: ToolSettings): Promise<ToolResult> {
  const ws = await workspaceRoot(ctx.workspace);
  if (!ws.ok) return fail(ws.error);
  if (ctx.signal.aborted) throw ctx.signal.reason;

  const requested = params.timeout_s ?? settings.defaultShellTimeoutS;
  const timeoutS = Math.min(requested, settings.maxShellTimeoutS);
  const sink = new OutputSink(settings.spillDir, settings.outputCapBytes, 'shell', settings.now);
  const decoders = { out: new StringDecoder('utf8'), err: new StringDecoder('utf8') };
  const emit = (text: string) => {
    if (text === '' || !ctx.onOutput) return;
    // A failing listener (a closed event stream) must not take the command down with it.
    try {
      ctx.onOutput(text);
    } catch {
      /* ignored */
    }
  };
  const started = settings.now();
  const run = spawnGroup('bash', ['-c', GUARDED], {
    cwd: ws.root,
    env: {
      ...settings.shellEnv,
      PAGER: 'cat',
      GIT_PAGER: 'cat',
      GIT_TERMINAL_PROMPT: '0',
      STRAND_SHELL_COMMAND: params.command,
      STRAND_WORKER_PID: String(process.pid),
    },
    killGraceMs: settings.killGraceMs,
    onStdout: (c) => {
      sink.write(c);
      emit(decoders.out.write(c));
    },
    onStderr: (c) => {
      sink.write(c);
      emit(decoders.err.write(c));
    },
  });
  let spawnError: string | undefined;
  run.child.once('error', (e) => (spawnError = e.message));

  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void run.stop();
  }, timeoutS * 1000);
  const onAbort = () => void run.stop();
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  let exit: { code: number | null; signal: NodeJS.Signals | null };
  try {
    exit = await run.done;
    // The leader is gone; make sure the rest of the group is too before reporting a timeout or abort.
    if (timedOut || ctx.signal.aborted) await run.stop();
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onAbort);
  }
  emit(decoders.out.end());
  emit(decoders.err.end());
  const output = await sink.finish();
  if (ctx.signal.aborted) throw ctx.signal.reason;

  const durationMs = settings.now() - started;
  const details = {
    command: params.command,
    exit_code: exit.code,
    signal: exit.signal,
    timed_out: timedOut,
    timeout_s: timeoutS,
    duration_ms: durationMs,
    output_bytes: output.bytes,
    truncated: output.truncated,
    spill_path: output.spillPath,
    pgid: run.pgid,
  };
  if (spawnError) return fail(`Could not start bash: ${spawnError}`, details);
  const body = output.text === '' ? '(no output)' : output.text.replace(/\n$/, '');
  const notes: string[] = [];
  if (requested > timeoutS) notes.push(`[timeout_s ${requested} exceeds the maximum; ${timeoutS} s was used.]`);
  if (timedOut) {
    notes.push(`[Timed out after ${timeoutS} s: the command and every process it started were killed. Run long jobs with a larger timeout_s or in smaller steps.]`);
    return fail([body, ...notes].join('\n'), details);
  }
  const status = exit.code !== null ? `[exit code ${exit.code}]` : `[killed by signal ${exit.signal}]`;
  const content = [body, ...notes, status].join('\n');
  return exit.code === 0 ? ok(content, { details }) : fail(content, details);
}
