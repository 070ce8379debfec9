import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import type { EventUsage } from '../../contracts/agent-events';
import type { ApprovalPolicy } from '../../contracts/session-settings';
import { requiresApproval } from '../../contracts/approval-policy';
import { isMcpToolName } from '../../contracts/mcp';
import type { ContentBlock, StopReason } from '../../contracts/session-store/messages';
import { parseModelId } from '../../contracts/models';
import { entryIds } from '../../contracts/workflow-ids';
import type { PublishedText } from '../events/published-text';
import type { AgentEventPublisher, OutgoingEvent } from '../events/publisher';
import { StreamPublisher } from '../events/stream-publisher';
import type { TurnCancelChannel } from '../events/turn-cancel';
import { isWorkerShutdown, workerShutdownFailure } from '../infra/worker-shutdown';
import { abortOnCancel } from '../infra/abort-on-cancel';
import type { StorePort } from '../store/store-port';
import { beginTurn, persistTurnCounter, userContent, type BeginTurnInput } from '../store/session-activities';
import { storeCall } from '../store/store-failures';
import { infraFailure, isInfraFault, rideOut } from '../infra/infra-faults';
import { MessageAssembler } from './assemble';
import { contextOf as conversationOf, readActivePath, withPrompt, type PathItem } from './context';
import { withImageBytes, type PromptImageReader } from './image-bytes';
import { planRetriedStep } from './continuation';
import { toProviderFailure } from './provider-failure';
import { tellUnknownModelOnce } from './unknown-model-notice';
import type { ProviderRegistry } from './registry';
import type { SessionMcp } from '../mcp/session-mcp';
import { ProviderError, type ProviderTool, type ProviderUsage, type ThinkingLevel } from './types';

export interface StreamModelStepInput {
  session_id: string;
  project_path: string;
  turn_id: string;
  step: number;
  /** The turn's attempt at this step (the workflow owns retries); > 1 continues or resets what earlier ones published. */
  attempt: number;
  model: string;
  thinking_level: ThinkingLevel;
  /** Decides which of the step's tool calls wait for a person (announced with the calls). */
  approval: ApprovalPolicy;
  /** Step 0 of a turn carries the turn's first writes (see beginTurn): no separate task before the model. */
  begin?: Omit<BeginTurnInput, 'session_id' | 'turn_id'>;
  /** A sub-agent's step: only these tools are offered (docs/subagents.md). Absent: all of them. */
  only_tools?: string[];
}

/** Entry ids and call ids only: the message itself lives in the store, never in workflow history. */
export interface StreamModelStepResult {
  entry_id: string;
  stop_reason: StopReason;
  /** `read_only` is given for MCP tools (their server's annotation), which the workflow cannot look up. */
  tool_calls: Array<{ id: string; name: string; requires_approval: boolean; label?: string; read_only?: boolean }>;
  /** Tokens the step's context took (input, cached and output): what the next step starts from. */
  context_tokens: number;
  /** The model's context window (catalog, or default limits for an unknown model). */
  context_window: number;
}

interface SystemPromptWithNotices {
  text: string;
  notices: string[];
}

export interface StreamModelStepDeps {
  store: StorePort;
  events: AgentEventPublisher;
  providers: ProviderRegistry;
  now?: () => number;
  /** Price of a step's usage in USD, from the model catalog (unknown → 0). */
  price?: (model: string, usage: ProviderUsage) => number;
  /** The system prompt, with warnings about it (project instruction files skipped or cut) for step 0 to publish. */
  systemPrompt?: (input: { project_path: string; model: string; plan_mode?: boolean }) => Promise<string | SystemPromptWithNotices> | string | SystemPromptWithNotices;
  tools?: ProviderTool[];
  /** Whether a tool only reads (for the approval policy); unknown tools count as writing. */
  isReadOnly?: (tool: string) => boolean;
  /** How often the activity heartbeats (carries cancellation; proves the stream alive). */
  heartbeatMs?: number;
  /** A stream with no chunk for this long is abandoned as transient (and retried by the turn). */
  stallMs?: number;
  /** The fast path of an abort (NATS); Temporal's cancellation is the durable one. */
  cancels?: TurnCancelChannel;
  /** Limits of a model from the catalog; `known: false` for ids the catalog does not list. */
  modelInfo?: (model: string) => { context_window: number; max_output_tokens: number; known: boolean };
  /** What earlier attempts of a step published (a retried step continues from it); without it a retry resets. */
  publishedText?: PublishedText;
  /** Where prompt images' bytes are (the user message holds references); without it they are left out with a note. */
  images?: PromptImageReader;
  /** The session's MCP servers (activities/mcp): their tools are offered beside `tools`, a server that cannot be had is a notice. */
  mcp?: Pick<SessionMcp, 'stepTools'>;
}

/**
 * Streams one model step: publishes each delta to JetStream as it arrives (never through workflow
 * history), heartbeats on a ticker, then appends the final assistant message under a deterministic
 * entry id and announces it. An attempt > 1 continues the answer from the text earlier attempts
 * published (a prefill: only the continuation is streamed, the stored message is the whole text) when
 * the model and what was published allow it (continuation.ts), else it first publishes `stream.reset`
 * so readers drop that step's partial text and streams anew; a step already stored (an earlier attempt
 * finished writing) is announced as-is.
 * On cancellation the partial answer is recorded with stop reason `aborted` before the cancellation
 * propagates. Provider failures leave as typed `provider.<kind>` failures for the turn to judge.
 */
export function createStreamModelStep(deps: StreamModelStepDeps) {
  const now = deps.now ?? Date.now;
  const heartbeatMs = deps.heartbeatMs ?? 250;
  const stallMs = deps.stallMs ?? 90_000;
  return async function streamModelStep(input: StreamModelStepInput): Promise<StreamModelStepResult> {
    const ctx = Context.current();
    // Heartbeats on a ticker for the whole step, also while a store or NATS outage is waited out: the
    // step is alive as long as its worker is (the turn notices a dead worker within seconds). None at
    // once: see whileHeartbeating (activities/tool-calls/heartbeats.ts).
    let chunks = 0;
    const ticker = setInterval(() => ctx.heartbeat({ step: input.step, chunks }), heartbeatMs);
    try {
      return await run();
    } catch (err) {
      // strand's own parts unreachable: the turn retries the step, and never reports it as the model's fault.
      throw isInfraFault(err) ? infraFailure(err) : err;
    } finally {
      clearInterval(ticker);
    }

    async function run(): Promise<StreamModelStepResult> {
      const entryId = entryIds.assistant(input.turn_id, input.step);
      const tag = `${input.turn_id}:s${input.step}:a${input.attempt}`;
      const base = { turn_id: input.turn_id, attempt: input.attempt };
      const info = deps.modelInfo?.(input.model) ?? { context_window: 128_000, max_output_tokens: 8_192, known: true };
      const contextOf = (u: { input?: number | null; output?: number | null; cache_read?: number | null; cache_write?: number | null } | undefined) => ({
        context_tokens: (u?.input ?? 0) + (u?.output ?? 0) + (u?.cache_read ?? 0) + (u?.cache_write ?? 0),
        context_window: info.context_window,
      });
      let mcpReadOnly: ReadonlyMap<string, boolean> = new Map();
      const isReadOnly = (tool: string) => mcpReadOnly.get(tool) ?? deps.isReadOnly?.(tool) ?? false;
      const needsApproval = (tool: string) => requiresApproval(input.approval, { name: tool, readOnly: isReadOnly(tool) });
      // Settings hold only ids that passed modelIdSchema, so this parse cannot fail here.
      const { provider, model: modelName } = parseModelId(input.model);

      // What the first delta waits for, overlapped: the system prompt (files), the turn's start (store
      // writes, `turn.started`) and the check for an earlier attempt's answer are independent.
      const systemPrompt = Promise.resolve().then(() => deps.systemPrompt?.({ project_path: input.project_path, model: input.model, plan_mode: input.approval.plan_mode === true }) ?? '');
      systemPrompt.catch(() => undefined); // awaited below, unless an earlier attempt's answer is announced instead
      const promptAt = now();
      const begin = input.begin;
      // An earlier attempt's answer can only exist when this is not the step's first try (the turn
      // owns retries, and Temporal's own attempts of a step are counted too): the first try asks the
      // store nothing before its writes. Asked before the writes otherwise: the store takes a
      // session's requests in the order they come.
      const firstTry = input.attempt === 1 && ctx.info.attempt === 1;
      const earlier = firstTry ? Promise.resolve(null) : storeCall('reading an earlier attempt', () => deps.store.getMessage({ session_id: input.session_id, entry_id: entryId }));
      // The turn's first writes go first: the prompt's append is what the first delta waits for, and
      // the store handles a session's requests in the order they come (each read sent before it
      // would delay it by its own handling).
      const beginInput = begin && { session_id: input.session_id, turn_id: input.turn_id, ...begin };
      const begun = beginInput && beginTurn(deps.store, deps.events, beginInput, () => promptAt);
      begun?.counted.catch(() => undefined); // awaited by turnCounted
      /** The turn's counter is durable before the step records or announces its answer (a failed write is made again, waited out as the answer is). */
      const turnCounted = () => (begun && beginInput ? rideOut(() => begun.counted.catch(() => persistTurnCounter(deps.store, beginInput))) : Promise.resolve());
      // The conversation is read beside the turn's first writes rather than after them (one store round
      // trip less before the first delta): a read that did not see the prompt yet gets it from this
      // step's own input, as stored (withPrompt). The step streams only once the prompt is recorded (beginTurn).
      const conversation = readActivePath(deps.store, input.session_id).then((path) =>
        begin ? withPrompt(path, { entry_id: entryIds.user(input.turn_id), message: { role: 'user', content: userContent(begin) }, timestamp: promptAt }) : path,
      );
      conversation.catch(() => undefined); // awaited below, unless an earlier attempt's answer is announced instead
      // Listed at every step (servers start lazily, a dead one again at the next turn); failures degrade to notices.
      // A sub-agent's step (`only_tools`) is offered no MCP tools: its servers are not started for it.
      const mcpTools = deps.mcp && !input.only_tools ? deps.mcp.stepTools(input) : Promise.resolve(undefined);
      mcpTools.catch(() => undefined);
      // The prompt stored and `turn.started` out: what anything this step publishes waits for (a client
      // told the answer can read the question), but not the provider's request, which is sent beside
      // it (the model's time to its first token overlaps the store's write). The step never ends before
      // it has settled either: the turn's next writes (the answer, results) follow the prompt.
      const promptRecorded = begun?.recorded ?? Promise.resolve();
      promptRecorded.catch(() => undefined); // awaited by the first push and before the step ends
      const stream = new StreamPublisher(deps.events, input.session_id, promptRecorded);
      const existing = await earlier;
      if (existing && existing.entry.kind === 'message' && existing.entry.message.role === 'assistant') {
        const m = existing.entry.message;
        await promptRecorded;
        mcpReadOnly = (await mcpTools.catch(() => undefined))?.readOnly ?? mcpReadOnly;
        await turnCounted();
        await announce(m.content, m.stop_reason, m.usage ? usageOf(m.usage) : undefined);
        return result(entryId, m.content, m.stop_reason, needsApproval, contextOf(m.usage ?? undefined), mcpReadOnly);
      }
      const assembler = new MessageAssembler();
      const controller = new AbortController();
      let userAborted = false;
      const stopCancelWatch = abortOnCancel(ctx.cancellationSignal, () => controller.abort(ctx.cancellationSignal.reason));
      const unwatch = deps.cancels?.watch(input.session_id, input.turn_id, () => {
        userAborted = true;
        controller.abort(new CancelledFailure('the user aborted the turn'));
      });
      const cancelled = () => userAborted || ctx.cancellationSignal.aborted;
      // The provider's silence, not ours: time spent waiting for NATS to take a delta does not count.
      let lastChunkAt = now();
      let publishing = false;
      const stallWatch = setInterval(() => {
        if (!publishing && now() - lastChunkAt > stallMs) {
          controller.abort(new ProviderError('transient', `${provider} sent nothing for ${stallMs / 1000} s: the stream stalled`, { provider }));
        }
      }, Math.min(heartbeatMs * 4, 1_000));
      let done: { stop_reason: StopReason; usage: ProviderUsage; native?: string } | undefined;
      try {
        const { provider: adapter, model, entry } = deps.providers.resolve(input.model);
        const [path, built] = await Promise.all([conversation, systemPrompt]);
        const system = typeof built === 'string' ? built : built.text;
        const prefill = await continueOrReset(path, adapter.canContinue?.(entry) ?? false);
        // The stored message is the whole answer: what clients have, then what follows.
        if (prefill) assembler.add({ type: 'text_delta', text: prefill });
        // Once per turn (the prompt is rebuilt every step); ids per turn, so a retried step 0 does not repeat them.
        if (input.step === 0 && typeof built !== 'string') {
          for (const [i, message] of built.notices.entries()) await stream.push({ id: `${input.turn_id}:instructions:${i}`, ...base, event: { type: 'notice', level: 'warning', message } });
        }
        // Once per session and model (unknown-model-notice.ts), not before every turn.
        if (!info.known && input.step === 0) {
          const message = `${input.model} is not in the model catalog: default limits (${info.context_window} tokens context, ${info.max_output_tokens} output) and no price (cost shows as 0)`;
          await tellUnknownModelOnce(deps.store, input.session_id, input.model, () => stream.push({ id: `${input.turn_id}:unknown-model`, ...base, event: { type: 'notice', level: 'warning', message } }));
        }
        const messages = await withImageBytes(conversationOf(path), deps.images);
        const mcp = await mcpTools;
        if (mcp) {
          mcpReadOnly = mcp.readOnly;
          // One notice per server and turn (the id), however many steps find it down.
          for (const f of mcp.failures) await stream.push({ id: `${input.turn_id}:mcp:${f.server}`, ...base, event: { type: 'notice', level: 'warning', message: `MCP server ${f.server}: ${f.error}` } });
        }
        const request = { model, messages, system, tools: [...(deps.tools ?? []), ...(mcp?.tools ?? [])], thinking_level: input.thinking_level, max_output_tokens: info.max_output_tokens, signal: controller.signal };
        if (input.only_tools) request.tools = request.tools.filter((t) => input.only_tools!.includes(t.name));
        // Cancelled while it read the conversation: the provider is not asked at all.
        controller.signal.throwIfAborted();
        for await (const chunk of adapter.stream(prefill ? { ...request, prefill } : request)) {
          lastChunkAt = now();
          chunks += 1;
          assembler.add(chunk);
          if (chunk.type === 'done') {
            done = { stop_reason: chunk.stop_reason, usage: chunk.usage, ...(chunk.native_stop_reason ? { native: chunk.native_stop_reason } : {}) };
            break;
          }
          const event = deltaEvent(chunk, input);
          if (event) {
            publishing = true;
            await stream.push({ id: `${tag}:c${chunks}`, ...base, event });
            publishing = false;
            lastChunkAt = now();
          }
        }
        publishing = true;
        await stream.flush();
        if (!done) throw new ProviderError('transient', `${provider} ended the stream without finishing the message`, { provider });
      } catch (err) {
        // The prompt's append failing (the store unreachable) is this step's failure: the turn retries it.
        await promptRecorded;
        // The worker is stopping (not the person): hand the step back like a crash, without recording
        // an aborted answer. Every delta out is flushed, so the retry continues from exactly that text.
        if (!userAborted && isWorkerShutdown(ctx)) {
          await stream.flush().catch(() => undefined);
          ctx.heartbeat({ step: input.step, chunks });
          throw workerShutdownFailure(`model step ${input.step} of ${input.turn_id}`);
        }
        if (cancelled()) {
          await recordAborted(assembler.blocks);
          throw ctx.cancellationSignal.reason instanceof CancelledFailure ? ctx.cancellationSignal.reason : new CancelledFailure('the user aborted the turn');
        }
        // Every delta out before the failure is: the retry continues from exactly what was published.
        await stream.flush().catch(() => undefined);
        throw toProviderFailure(controller.signal.reason instanceof ProviderError ? controller.signal.reason : err);
      } finally {
        clearInterval(stallWatch);
        unwatch?.();
        stopCancelWatch();
      }

      const cost = deps.price?.(input.model, done.usage) ?? 0;
      const usage: EventUsage = { input: done.usage.input, output: done.usage.output, cache_read: done.usage.cache_read, cache_write: done.usage.cache_write, cost_usd: cost };
      // The answer is paid for and every delta is out: a store outage is waited out, not thrown away.
      // (An answer with no delta published nothing yet: the prompt precedes it in the store too.)
      await promptRecorded;
      await turnCounted();
      await rideOut(() => storeCall(`recording the answer of ${input.turn_id}`, () =>
        deps.store.append({
          session_id: input.session_id,
          entry_id: entryId,
          message: {
            role: 'assistant',
            content: assembler.blocks,
            model: modelName,
            provider,
            stop_reason: done.stop_reason,
            ...(done.native ? { native_stop_reason: done.native } : {}),
            usage: { ...usage, ...(done.usage.reasoning !== undefined ? { reasoning: done.usage.reasoning } : {}) },
            timestamp: now(),
          },
          origin: { turn: input.turn_id, step: input.step },
        }),
      ));
      await announce(assembler.blocks, done.stop_reason, usage);
      return result(entryId, assembler.blocks, done.stop_reason, needsApproval, contextOf(done.usage), mcpReadOnly);

      async function announce(content: ContentBlock[], stop: StopReason, usage: EventUsage | undefined) {
        const text = content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
        const events: OutgoingEvent[] = [
          {
            id: `${input.turn_id}:s${input.step}:done`,
            ...base,
            event: { type: 'assistant.message', turn_id: input.turn_id, step: input.step, entry_id: entryId, text, content, stop_reason: stop, model: input.model, ...(usage ? { usage } : {}) },
          },
        ];
        if (usage) events.push({ id: `${input.turn_id}:s${input.step}:usage`, ...base, event: { type: 'usage', ...usage } });
        for (const b of content) {
          if (b.type !== 'function_call') continue;
          const ask = needsApproval(b.function_id);
          const id = `${input.turn_id}:s${input.step}:call:${b.id}`;
          events.push({ id, ...base, event: { type: 'tool.call', turn_id: input.turn_id, step: input.step, tool_call_id: b.id, tool: b.function_id, params: b.arguments ?? {}, requires_approval: ask } });
          if (ask) {
            events.push({ id: `${id}:approval`, ...base, event: { type: 'approval.requested', tool_call_id: b.id, tool: b.function_id, params: b.arguments ?? {}, timeout_s: input.approval.timeout_s } });
          }
        }
        await deps.events.publish(input.session_id, events);
      }

      /** Attempt > 1: the text to continue from, or undefined after publishing `stream.reset`. */
      async function continueOrReset(path: PathItem[], canContinue: boolean): Promise<string | undefined> {
        if (input.attempt <= 1) return undefined;
        const plan = await planRetriedStep(input, path, canContinue, deps.publishedText);
        if (plan.continue) return plan.prefill;
        await stream.push({ id: `${tag}:reset`, ...base, event: { type: 'stream.reset', turn_id: input.turn_id, step: input.step } });
        return undefined;
      }

      /** Keeps what was streamed before an abort, so the transcript shows exactly what the user saw. */
      async function recordAborted(content: ContentBlock[]) {
        const kept = content.filter((b) => b.type !== 'function_call');
        await stream.flush().catch(() => undefined);
        await turnCounted();
        await rideOut(() => storeCall(`recording the aborted answer of ${input.turn_id}`, () =>
          deps.store.append({
            session_id: input.session_id,
            entry_id: entryId,
            message: { role: 'assistant', content: kept, model: modelName, provider, stop_reason: 'aborted', timestamp: now() },
            origin: { turn: input.turn_id, step: input.step },
          }),
        ), { maxMs: 60_000 });
        await announce(kept, 'aborted', undefined);
      }
    }
  };
}

function result(
  entry_id: string,
  content: ContentBlock[],
  stop: StopReason,
  needsApproval: (tool: string) => boolean,
  context: { context_tokens: number; context_window: number },
  mcpReadOnly: ReadonlyMap<string, boolean>,
): StreamModelStepResult {
  const tool_calls = content.flatMap((b) => {
    if (b.type !== 'function_call') return [];
    const label = labelOf(b.arguments);
    const readOnly = isMcpToolName(b.function_id) ? { read_only: mcpReadOnly.get(b.function_id) ?? false } : {};
    return [{ id: b.id, name: b.function_id, requires_approval: needsApproval(b.function_id), ...(label ? { label } : {}), ...readOnly }];
  });
  return { entry_id, stop_reason: stop, tool_calls, ...context };
}

/** What a tool call is about, in a few words (for the Temporal UI): its path, pattern or command. */
function labelOf(args: unknown): string | undefined {
  if (!args || typeof args !== 'object') return undefined;
  const a = args as Record<string, unknown>;
  const v = [a.path, a.pattern, a.command].find((x) => typeof x === 'string' && x !== '') as string | undefined;
  return v === undefined ? undefined : v.length > 60 ? `${v.slice(0, 59)}…` : v;
}

function deltaEvent(chunk: Parameters<MessageAssembler['add']>[0], input: StreamModelStepInput): OutgoingEvent['event'] | undefined {
  if (chunk.type === 'text_delta') return { type: 'assistant.delta', turn_id: input.turn_id, step: input.step, text: chunk.text };
  if (chunk.type === 'thinking_delta') return { type: 'assistant.thinking_delta', turn_id: input.turn_id, step: input.step, text: chunk.text };
  return undefined;
}

function usageOf(u: { input?: number | null; output?: number | null; cache_read?: number | null; cache_write?: number | null; cost_usd?: number | null }): EventUsage {
  return { input: u.input ?? 0, output: u.output ?? 0, cache_read: u.cache_read ?? 0, cache_write: u.cache_write ?? 0, cost_usd: u.cost_usd ?? 0 };
}
