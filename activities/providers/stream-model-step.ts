import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { entryIds } from '../../contracts/workflow-messages';
import type { EventUsage } from '../../contracts/agent-events';
import type { AgentEventPublisher, OutgoingEvent } from '../events/publisher';
import type { StorePort } from '../store/store-port';
import { buildProviderContext, textOf } from './context';
import type { ProviderRegistry } from './registry';
import { ProviderError, type ProviderUsage } from './types';

export interface StreamModelStepInput {
  session_id: string;
  turn_id: string;
  step: number;
  model: string;
}

export interface StreamModelStepResult {
  entry_id: string;
  stop_reason: 'end' | 'length' | 'function_call';
  text_length: number;
}

export interface StreamModelStepDeps {
  store: StorePort;
  events: AgentEventPublisher;
  providers: ProviderRegistry;
  now?: () => number;
}

/** Deltas are flushed to JetStream in small batches: few round trips, still smooth for a reader. */
const DELTA_BATCH = 8;

/** Failure kinds Temporal must not retry: retrying cannot change the outcome. */
const NON_RETRYABLE = new Set(['permanent', 'auth_expired', 'context_overflow']);

function toFailure(err: unknown): unknown {
  if (!(err instanceof ProviderError)) return err;
  return ApplicationFailure.create({
    message: err.message,
    type: `provider.${err.kind}`,
    nonRetryable: NON_RETRYABLE.has(err.kind),
    ...(err.retryAfterMs !== undefined ? { nextRetryDelay: err.retryAfterMs } : {}),
    cause: err,
  });
}

/**
 * Streams one model step: publishes deltas to JetStream as they arrive (never through workflow
 * history), heartbeats, then appends the final assistant message under a deterministic entry id and
 * announces it. A retried attempt first publishes `stream.reset` so readers drop that step's partial
 * text; if an earlier attempt already stored the message, the stored one is announced as-is.
 */
export function createStreamModelStep(deps: StreamModelStepDeps) {
  const now = deps.now ?? Date.now;
  return async function streamModelStep(input: StreamModelStepInput): Promise<StreamModelStepResult> {
    const ctx = Context.current();
    const attempt = ctx.info.attempt;
    const entryId = entryIds.assistant(input.turn_id, input.step);
    const tag = `${input.turn_id}:s${input.step}`;
    const base = { turn_id: input.turn_id, attempt };
    const publish = (events: OutgoingEvent[]) => deps.events.publish(input.session_id, events);

    const existing = await deps.store.getMessage({ session_id: input.session_id, entry_id: entryId });
    if (existing && existing.entry.kind === 'message' && existing.entry.message.role === 'assistant') {
      const m = existing.entry.message;
      const stop = m.stop_reason === 'length' || m.stop_reason === 'function_call' ? m.stop_reason : 'end';
      const text = textOf(m.content);
      await publish([{ id: `${tag}:done`, ...base, event: { type: 'assistant.message', turn_id: input.turn_id, step: input.step, entry_id: entryId, text, stop_reason: stop, ...(m.usage ? { usage: usageOf(m.usage) } : {}) } }]);
      return { entry_id: entryId, stop_reason: stop, text_length: text.length };
    }

    if (attempt > 1) {
      await publish([{ id: `${tag}:a${attempt}:reset`, ...base, event: { type: 'stream.reset', turn_id: input.turn_id, step: input.step } }]);
    }

    let text = '';
    let done: { stop_reason: StreamModelStepResult['stop_reason']; usage: ProviderUsage } | undefined;
    let pending: OutgoingEvent[] = [];
    let n = 0;
    try {
      const { provider, model } = deps.providers.resolve(input.model);
      const messages = await buildProviderContext(deps.store, input.session_id);
      for await (const chunk of provider.stream({ model, messages, thinking_level: 'off', signal: ctx.cancellationSignal })) {
        if (chunk.type === 'done') {
          done = { stop_reason: chunk.stop_reason, usage: chunk.usage };
          break;
        }
        if (chunk.type === 'text_delta') text += chunk.text;
        const type = chunk.type === 'text_delta' ? 'assistant.delta' : 'assistant.thinking_delta';
        pending.push({ id: `${tag}:a${attempt}:d${n++}`, ...base, event: { type, turn_id: input.turn_id, step: input.step, text: chunk.text } });
        if (pending.length >= DELTA_BATCH) {
          await publish(pending);
          pending = [];
        }
        ctx.heartbeat({ deltas: n });
      }
      if (pending.length > 0) await publish(pending);
    } catch (err) {
      throw toFailure(err);
    }
    if (!done) throw ApplicationFailure.retryable('provider stream ended without a final chunk', 'provider.transient');

    await deps.store.append({
      session_id: input.session_id,
      entry_id: entryId,
      message: {
        role: 'assistant',
        content: [{ type: 'text', text }],
        model: input.model.slice(input.model.indexOf('/') + 1),
        provider: input.model.slice(0, input.model.indexOf('/')),
        stop_reason: done.stop_reason,
        usage: done.usage,
        timestamp: now(),
      },
      origin: { turn: input.turn_id, step: input.step },
    });
    await publish([{ id: `${tag}:done`, ...base, event: { type: 'assistant.message', turn_id: input.turn_id, step: input.step, entry_id: entryId, text, stop_reason: done.stop_reason, usage: done.usage } }]);
    return { entry_id: entryId, stop_reason: done.stop_reason, text_length: text.length };
  };
}

function usageOf(u: { input?: number | null; output?: number | null; cache_read?: number | null; cache_write?: number | null; cost_usd?: number | null }): EventUsage {
  return { input: u.input ?? 0, output: u.output ?? 0, cache_read: u.cache_read ?? 0, cache_write: u.cache_write ?? 0, cost_usd: u.cost_usd ?? 0 };
}
