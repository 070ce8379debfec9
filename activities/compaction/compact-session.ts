import { Context } from '@temporalio/activity';
import { COMPACTION_CUSTOM_TYPE, type CompactionData } from '../../contracts/compaction';
import type { AgentEventPublisher } from '../events/publisher';
import { contextOf, readActivePath, summaryMessage } from '../providers/context';
import { toProviderFailure } from '../providers/provider-failure';
import type { ProviderRegistry } from '../providers/registry';
import { ProviderError, type ProviderUsage } from '../providers/types';
import type { StorePort } from '../store/store-port';
import { storeCall } from '../store/store-failures';
import { chooseCut, estimateTokens, filesTouched, transcriptText, type PathMessage } from './plan';

export interface CompactSessionInput {
  session_id: string;
  /** Deterministic per compaction: the record's entry id and the events' ids derive from it. */
  compaction_id: string;
  model: string;
  reason: CompactionData['reason'];
  instructions?: string;
  turn_id?: string;
  /** The model's context window, in tokens (0: look it up): what is kept after the cut fits a fifth of it. */
  context_window: number;
}

export interface CompactSessionResult {
  compacted: boolean;
  /** The summary now standing in for the older conversation ('' when there was nothing to compact). */
  summary: string;
  tokens_before: number;
  tokens_after: number;
}

const SUMMARY_SYSTEM = [
  'You compact a coding session so it can go on in a smaller context. Write a summary another engineer',
  'could continue from: the user\'s goals and constraints, decisions made and why, what was done (files',
  'created or changed, commands run and what they showed), what is still open, and any exact names,',
  'paths, errors or values that will matter. Be concise and concrete; no preamble.',
].join(' ');

/**
 * Compacts a session: summarises the older part of the active branch with the session's model and
 * records a `compaction` custom entry (summary, first kept entry, tokens before, files read and
 * modified); every later context is built from it (providers/context.ts). Idempotent on
 * `compaction_id`: a retry after the record was written writes nothing new.
 */
export function createCompactSession(deps: {
  store: StorePort;
  events: AgentEventPublisher;
  providers: ProviderRegistry;
  modelInfo?: (model: string) => { context_window: number };
  /** The cost of a call (the model catalog's prices); without it the summary's cost counts as 0. */
  price?: (model: string, usage: ProviderUsage) => number;
}) {
  return async function compactSession(input: CompactSessionInput): Promise<CompactSessionResult> {
    const ctx = Context.current();
    const base = input.turn_id ? { turn_id: input.turn_id } : {};
    const publish = (id: string, event: Parameters<AgentEventPublisher['publish']>[1][number]['event']) =>
      deps.events.publish(input.session_id, [{ id: `${input.compaction_id}:${id}`, ...base, event }]);
    await publish('started', { type: 'compaction.started', reason: input.reason });

    const path = await readActivePath(deps.store, input.session_id);
    const tokensBefore = estimateTokens(contextOf(path));
    const done = path.find((p) => p.entry_id === input.compaction_id)?.compaction;
    if (done) {
      await publish('finished', { type: 'compaction.finished', summary: done.summary, tokens_before: done.tokens_before });
      return { compacted: true, summary: done.summary, tokens_before: done.tokens_before, tokens_after: tokensBefore };
    }

    // The conversation as the model sees it now: an earlier summary stands first, as the entry it came from.
    let last = -1;
    for (let i = path.length - 1; i >= 0; i--) if (path[i]!.compaction && last < 0) last = i;
    const previous = last >= 0 ? path[last]!.compaction! : undefined;
    const firstKept = previous ? path.findIndex((p) => p.entry_id === previous.first_kept_entry_id) : -1;
    const effective: PathMessage[] = [
      ...(previous ? [{ entry_id: path[last]!.entry_id, message: summaryMessage(previous) }] : []),
      ...(previous ? [...(firstKept >= 0 && firstKept < last ? path.slice(firstKept, last) : []), ...path.slice(last + 1)] : path).flatMap((p) =>
        p.message ? [{ entry_id: p.entry_id, message: p.message }] : [],
      ),
    ];
    const window = input.context_window || deps.modelInfo?.(input.model).context_window || 128_000;
    const cut = chooseCut(effective, Math.max(2_000, Math.floor(window / 5)));
    if (cut === undefined) {
      await publish('finished', { type: 'compaction.finished', summary: '', tokens_before: tokensBefore });
      return { compacted: false, summary: '', tokens_before: tokensBefore, tokens_after: tokensBefore };
    }
    const older = effective.slice(0, cut);
    const files = filesTouched(older);
    const request = [
      'Summarise this conversation:',
      transcriptText(older),
      input.instructions ? `Instructions for this summary: ${input.instructions}` : '',
    ].filter(Boolean).join('\n\n');

    let summary = '';
    let paid: ProviderUsage | undefined;
    const ticker = setInterval(() => ctx.heartbeat(), 1_000);
    try {
      const { provider, model } = deps.providers.resolve(input.model);
      for await (const chunk of provider.stream({ model, system: SUMMARY_SYSTEM, messages: [{ role: 'user', content: [{ type: 'text', text: request }] }], tools: [], thinking_level: 'off', signal: ctx.cancellationSignal })) {
        if (chunk.type === 'text_delta') summary += chunk.text;
        if (chunk.type === 'done') paid = chunk.usage;
      }
      if (!summary.trim()) throw new ProviderError('transient', `${input.model} returned an empty summary`);
    } catch (err) {
      throw toProviderFailure(err);
    } finally {
      clearInterval(ticker);
    }

    const data: CompactionData = {
      summary: summary.trim(),
      first_kept_entry_id: effective[cut]!.entry_id,
      tokens_before: tokensBefore,
      files_read: [...new Set([...(previous?.files_read ?? []), ...files.files_read])].sort(),
      files_modified: [...new Set([...(previous?.files_modified ?? []), ...files.files_modified])].sort(),
      reason: input.reason,
      ...(input.instructions ? { instructions: input.instructions } : {}),
      ...(paid ? { usage: { input: paid.input, output: paid.output, cache_read: paid.cache_read, cache_write: paid.cache_write, cost_usd: deps.price?.(input.model, paid) ?? 0 } } : {}),
    };
    await storeCall('recording the compaction', () =>
      deps.store.append({ session_id: input.session_id, entry_id: input.compaction_id, custom: { custom_type: COMPACTION_CUSTOM_TYPE, data }, ...(input.turn_id ? { origin: { turn: input.turn_id } } : {}) }),
    );
    await publish('finished', { type: 'compaction.finished', summary: data.summary, tokens_before: tokensBefore });
    const tokensAfter = estimateTokens([summaryMessage(data), ...effective.slice(cut).map((p) => p.message)]);
    return { compacted: true, summary: data.summary, tokens_before: tokensBefore, tokens_after: tokensAfter };
  };
}
