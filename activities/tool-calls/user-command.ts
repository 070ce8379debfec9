import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import type { AgentEvent } from '../../contracts/agent-events';
import type { UserCommandResult } from '../../contracts/session-workflow';
import type { AgentEventPublisher } from '../events/publisher';
import { StreamPublisher } from '../events/stream-publisher';
import type { StorePort } from '../store/store-port';
import { storeCall } from '../store/store-failures';
import type { ToolLedger, ToolOutcome } from './ledger';
import type { ToolExecutorPort } from './run-tool';
import { isWorkerShutdown } from '../infra/worker-shutdown';
import { abortOnCancel } from '../infra/abort-on-cancel';
import { whileHeartbeating } from './heartbeats';

export interface UserCommandInput {
  session_id: string;
  project_path: string;
  /** The command's id (`bash:<uuid>` from the session workflow): its events' call id and its entry id. */
  id: string;
  command: string;
  timeout_s?: number;
}

export interface UserCommandDeps {
  store: StorePort;
  events: AgentEventPublisher;
  ledger: ToolLedger;
  tools: ToolExecutorPort;
  now?: () => number;
  heartbeatMs?: number;
}

/**
 * A shell command the user runs themselves (psi's `bash` op, pi's `!cmd`), in the session's workspace
 * with the same shell tool the model uses (process group, timeout, output cap with the full output
 * kept). It is announced and streamed like a tool call, and recorded in the conversation as a user
 * message so the model sees it on the next prompt. Like the model's shell calls it never runs twice:
 * its outcome is in the ledger before the activity completes, and a retry after a crash reports it as
 * interrupted. Cancelling the activity (abort_bash) kills the command's process group.
 */
export function createRunUserCommand(deps: UserCommandDeps) {
  const now = deps.now ?? Date.now;
  const heartbeatMs = deps.heartbeatMs ?? 250;
  return async function runUserCommand(input: UserCommandInput): Promise<UserCommandResult> {
    const ctx = Context.current();
    const progress = { chunks: 0 };
    // Also while the ledger, the store and NATS are awaited, not only while the command runs (heartbeats.ts).
    return whileHeartbeating(ctx, () => ({ chunks: progress.chunks }), heartbeatMs, () => run(input, ctx, progress));
  };

  async function run(input: UserCommandInput, ctx: Context, progress: { chunks: number }): Promise<UserCommandResult> {
    const key = { session_id: input.session_id, turn_id: input.id, step: 0, call_id: input.id };
    const stream = new StreamPublisher(deps.events, input.session_id);
    const publish = (suffix: string, event: AgentEvent) => deps.events.publish(input.session_id, [{ id: `${input.id}:${suffix}`, event }]);

    let outcome = await deps.ledger.get(key);
    let cancelled = false;
    if (!outcome && ctx.info.attempt > 1) {
      outcome = { content: 'the command was interrupted: the worker running it stopped before it finished, so it was not run again', is_error: true, details: { interrupted: true } };
    }
    if (!outcome) {
      await publish('call', { type: 'tool.call', tool_call_id: input.id, tool: 'shell_exec', params: { command: input.command }, requires_approval: false });
      await publish('executing', { type: 'tool.executing', tool_call_id: input.id });
      const controller = new AbortController();
      const stopCancelWatch = abortOnCancel(ctx.cancellationSignal, () => controller.abort(ctx.cancellationSignal.reason));
      try {
        controller.signal.throwIfAborted();
        outcome = await deps.tools.execute('shell_exec', { command: input.command, ...(input.timeout_s ? { timeout_s: input.timeout_s } : {}) }, {
          workspace: input.project_path,
          signal: controller.signal,
          onOutput: (content) => {
            progress.chunks += 1;
            void stream.push({ id: `${input.id}:o${progress.chunks}`, event: { type: 'tool.output', tool_call_id: input.id, content } }).catch(() => undefined);
          },
        });
      } catch (err) {
        if (!controller.signal.aborted) throw err;
        if (isWorkerShutdown(ctx)) {
          // The worker is stopping, not the person: the command is reported as interrupted now, as its
          // retry would report it (it is never run twice), with what it printed kept in the stream.
          outcome = { content: 'the command was interrupted: the worker running it was stopped (a restart or a deploy) before it finished, so it was not run again', is_error: true, details: { interrupted: true } };
        } else {
          cancelled = true;
          outcome = { content: 'the command was stopped (abort_bash)', is_error: true, details: { aborted: true } };
        }
      } finally {
        stopCancelWatch();
      }
      await stream.flush().catch(() => undefined);
      await deps.ledger.put(key, outcome);
    }
    await record(input, outcome);
    await publish('result', {
      type: 'tool.result',
      tool_call_id: input.id,
      status: outcome.is_error ? 'error' : 'success',
      is_error: outcome.is_error,
      summary: `$ ${firstLine(input.command)}`,
      result: outcome.content,
    });
    if (cancelled) throw new CancelledFailure('the command was aborted');
    return resultOf(outcome, cancelled || outcome.details?.aborted === true);
  }

  /**
   * The conversation keeps what the user ran and what it printed, as a user message (the next
   * prompt's context). Idempotent: the entry id is the command's.
   */
  async function record(input: UserCommandInput, outcome: ToolOutcome): Promise<void> {
    const text = `I ran a command in the workspace myself:\n$ ${input.command}\n${outcome.content}`;
    await storeCall(`recording the command ${input.id}`, () =>
      deps.store.append({
        session_id: input.session_id,
        entry_id: input.id,
        message: { role: 'user', content: [{ type: 'text', text }], timestamp: now() },
        origin: { command: input.id },
      }),
    );
  }
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

function resultOf(outcome: ToolOutcome, cancelled: boolean): UserCommandResult {
  const d = outcome.details ?? {};
  const exit = typeof d.exit_code === 'number' ? d.exit_code : null;
  const full = typeof d.spill_path === 'string' ? d.spill_path : undefined;
  return { output: outcome.content, exit_code: exit, cancelled, truncated: d.truncated === true, ...(full ? { full_output_path: full } : {}) };
}
