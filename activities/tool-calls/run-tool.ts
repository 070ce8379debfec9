import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import type { AgentEvent } from '../../contracts/agent-events';
import { isMcpToolName } from '../../contracts/mcp';
import { entryIds } from '../../contracts/workflow-ids';
import type { ToolCheckpoints } from '../checkpoints/tool-checkpoints';
import { StreamPublisher } from '../events/stream-publisher';
import type { TurnCancelChannel } from '../events/turn-cancel';
import { isWorkerShutdown, workerShutdownFailure } from '../infra/worker-shutdown';
import { abortOnCancel } from '../infra/abort-on-cancel';
import { storeCall } from '../store/store-failures';
import { whileHeartbeating } from './heartbeats';
import type { ToolOutcome } from './ledger';
import type { UserCommandDeps } from './user-command';

/** What the tool activity needs from the tools module (activities/tools). */
export interface ToolExecutorPort {
  execute(
    name: string,
    params: unknown,
    ctx: { workspace: string; signal: AbortSignal; onOutput?: (chunk: string) => void; attempt?: number; session_id?: string; turn_id?: string },
  ): Promise<ToolOutcome>;
}

export interface RunToolInput {
  session_id: string;
  project_path: string;
  turn_id: string;
  step: number;
  call_id: string;
  name: string;
}

/** What running a model's tool call needs: what a user's own command needs, and the turn's abort and checkpoints. */
export interface RunToolDeps extends UserCommandDeps {
  /** The fast path of an abort (NATS); Temporal's cancellation is the durable one. */
  cancels?: TurnCancelChannel;
  /** Records what write/edit/delete/shell change, before they change it (docs/undo.md). */
  toolCheckpoints?: ToolCheckpoints;
}

/** Tools that change the world in ways a second run could double (a command may append, push, deploy…). */
const NOT_REPEATABLE = new Set(['shell_exec']);

/**
 * Runs one tool call the model asked for, in the session's workspace. The arguments are read from the
 * stored assistant message (they never pass through workflow history); output streams as
 * `tool.output`; the outcome is recorded in the ledger by call id before the activity completes, so
 * a retry after a crash returns it instead of acting twice. A retry that finds no outcome for a tool
 * that must not run twice (shell) reports it as interrupted; edits recognise themselves as applied.
 * Tool failures are outcomes the model reads, never activity failures; cancellation (abort) kills the
 * tool, records "aborted" and propagates.
 */
export function createRunTool(deps: RunToolDeps) {
  const now = deps.now ?? Date.now;
  const heartbeatMs = deps.heartbeatMs ?? 250;
  return async function runTool(input: RunToolInput): Promise<{ is_error: boolean }> {
    const ctx = Context.current();
    const progress = { chunks: 0 };
    // From the first await to the last (whileHeartbeating says why): the checkpoint's diff after the
    // tool alone took 7 s on a busy machine and timed out a live worker's call.
    return whileHeartbeating(ctx, () => ({ chunks: progress.chunks }), heartbeatMs, () => run(input, ctx, progress));
  };

  async function run(input: RunToolInput, ctx: Context, progress: { chunks: number }): Promise<{ is_error: boolean }> {
    const key = { session_id: input.session_id, turn_id: input.turn_id, step: input.step, call_id: input.call_id };
    const tag = `${input.turn_id}:s${input.step}:tool:${input.call_id}`;
    const base = { turn_id: input.turn_id };
    const stream = new StreamPublisher(deps.events, input.session_id);

    // The arguments are read beside the ledger (one round trip before the tool instead of two); a call
    // the ledger already has does not need them, nor fails when they cannot be read.
    const args = argumentsOf(input);
    args.catch(() => undefined);
    const recorded = await deps.ledger.get(key);
    if (recorded) {
      await announce(recorded);
      return { is_error: recorded.is_error };
    }
    // An MCP tool's effects are unknown to strand: like a shell command, it is not run twice.
    if (ctx.info.attempt > 1 && (NOT_REPEATABLE.has(input.name) || isMcpToolName(input.name))) {
      const outcome: ToolOutcome = {
        content: `${input.name} was interrupted: the worker running it stopped before it finished, so it was not run again. Check the workspace state before running it again.`,
        is_error: true,
        details: { interrupted: true },
      };
      // Its checkpoint was begun before the worker stopped: what the command changed is still recorded.
      const checked = await checkpointed(outcome, {}, await args, new AbortController().signal);
      await deps.ledger.put(key, checked);
      await announce(checked);
      return { is_error: true };
    }

    const params = await args;
    await stream.push({ id: `${tag}:executing`, ...base, event: { type: 'tool.executing', tool_call_id: input.call_id } });
    let outcome: ToolOutcome;
    const controller = new AbortController();
    const began = await checkpointBegin(params, controller.signal);
    const stopCancelWatch = abortOnCancel(ctx.cancellationSignal, () => controller.abort(ctx.cancellationSignal.reason));
    const unwatch = deps.cancels?.watch(input.session_id, input.turn_id, () => controller.abort(new CancelledFailure('the user aborted the turn')));
    try {
      // Cancelled while it read its arguments and began its checkpoint: the tool is not started.
      controller.signal.throwIfAborted();
      outcome = await deps.tools.execute(input.name, params, {
        workspace: input.project_path,
        session_id: input.session_id,
        turn_id: input.turn_id,
        signal: controller.signal,
        // A re-run knows it may find its own earlier edit already applied.
        attempt: ctx.info.attempt,
        onOutput: (content) => {
          progress.chunks += 1;
          void stream.push({ id: `${tag}:o${progress.chunks}`, ...base, event: { type: 'tool.output', tool_call_id: input.call_id, content } }).catch(() => undefined);
        },
      });
    } catch (err) {
      if (!controller.signal.aborted) throw err;
      // The worker is stopping (its grace time is over), not the person: nothing is recorded, so the
      // retry on another worker runs the call again, or reports a command that must not run twice as
      // interrupted (its checkpoint was begun: what it changed stays undoable).
      if (controller.signal.reason === ctx.cancellationSignal.reason && isWorkerShutdown(ctx)) {
        await stream.flush().catch(() => undefined);
        throw workerShutdownFailure(`${input.name} (${input.call_id})`);
      }
      // What the stopped tool changed before it stopped is still recorded (a fresh signal: this one fired).
      const aborted = await checkpointed({ content: `${input.name} was stopped: the user aborted the turn.`, is_error: true, details: { aborted: true } }, began, params, new AbortController().signal);
      await deps.ledger.put(key, aborted);
      await stream.flush().catch(() => undefined);
      await announce(aborted);
      throw ctx.cancellationSignal.reason instanceof CancelledFailure ? ctx.cancellationSignal.reason : new CancelledFailure('tool cancelled');
    } finally {
      unwatch?.();
      stopCancelWatch();
    }
    await stream.flush();
    outcome = await checkpointed(outcome, began, params, controller.signal);
    await deps.ledger.put(key, outcome);
    await announce(outcome);
    return { is_error: outcome.is_error };

    function checkpointRef(params: unknown) {
      return { session_id: input.session_id, turn_id: input.turn_id, entry_id: entryIds.tool(input.turn_id, input.step, input.call_id), tool: input.name, params, workspace: input.project_path };
    }
    async function checkpointBegin(params: unknown, signal: AbortSignal): Promise<{ failed?: string }> {
      return deps.toolCheckpoints ? deps.toolCheckpoints.begin(checkpointRef(params), signal) : {};
    }
    async function checkpointed(outcome: ToolOutcome, began: { failed?: string }, params: unknown, signal: AbortSignal): Promise<ToolOutcome> {
      return deps.toolCheckpoints ? deps.toolCheckpoints.finish(checkpointRef(params), outcome, began, signal) : outcome;
    }

    async function announce(outcome: ToolOutcome) {
      const events: Array<{ id: string; event: AgentEvent }> = (outcome.file_changes ?? []).map((c, i) => ({
        id: `${tag}:file${i}`,
        event: { type: 'file.changed', path: c.path, operation: c.operation, timestamp: now() },
      }));
      events.push({
        id: `${tag}:result`,
        event: {
          type: 'tool.result',
          tool_call_id: input.call_id,
          status: outcome.is_error ? 'error' : 'success',
          is_error: outcome.is_error,
          summary: summaryOf(input.name, outcome),
          result: outcome.content,
        },
      });
      await deps.events.publish(input.session_id, events.map((e) => ({ ...e, ...base })));
    }
  }

  async function argumentsOf(input: RunToolInput): Promise<unknown> {
    const got = await storeCall(`reading the tool call ${input.call_id}`, () =>
      deps.store.getMessage({ session_id: input.session_id, entry_id: entryIds.assistant(input.turn_id, input.step) }),
    );
    const message = got?.entry.kind === 'message' ? got.entry.message : undefined;
    const call = message?.role === 'assistant' ? message.content.find((b) => b.type === 'function_call' && b.id === input.call_id) : undefined;
    return call && call.type === 'function_call' ? (call.arguments ?? {}) : {};
  }
}

/** One line for a tool row: the tool, and the first line of its outcome. */
export function summaryOf(name: string, outcome: ToolOutcome): string {
  const first = outcome.content.split('\n').find((l) => l.trim() !== '') ?? '';
  const line = first.length > 120 ? `${first.slice(0, 119)}…` : first;
  return `${name}${outcome.is_error ? ' failed' : ''}${line ? `: ${line}` : ''}`;
}
