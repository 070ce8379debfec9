import { COMPACTION_CUSTOM_TYPE } from './compaction';
import type { MessageItem } from './session-store/functions';
import type { Usage } from './session-store/messages';
import { subagentUsageOf } from './subagents';

/**
 * What one stored entry of a conversation cost — the one rule the budget check (activities/budget)
 * and /stats (gateway) both add up, so what a client shows as spent is what the check compares with
 * the cap (docs/budgets.md): a model step's usage on its assistant message, a sub-agent's on its task
 * call's result (docs/subagents.md), a compaction's summary call on its record. Read the messages with
 * `include_custom: true`, or compactions are missed.
 */
export function spendingOfEntry(item: Pick<MessageItem, 'message' | 'custom'>): Usage | undefined {
  const m = item.message;
  if (m?.role === 'assistant') return m.usage ?? undefined;
  if (m) return subagentUsageOf(m);
  if (item.custom?.custom_type !== COMPACTION_CUSTOM_TYPE) return undefined;
  const usage = (item.custom.data as { usage?: unknown } | undefined)?.usage;
  return usage && typeof usage === 'object' ? (usage as Usage) : undefined;
}

/** The tokens a usage counts against a token cap: input, output, cache read and cache write. */
export function tokensOf(u: Usage): number {
  return (u.input ?? 0) + (u.output ?? 0) + (u.cache_read ?? 0) + (u.cache_write ?? 0);
}
