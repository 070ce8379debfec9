import { COMPACTION_CUSTOM_TYPE } from './compaction';
import type { MessageItem } from './session-store/functions';
import { usageSchema, type Usage } from './session-store/messages';
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

/**
 * Metadata keys of what undone turns spent: a revert moves the conversation's leaf back, so their
 * steps leave the active branch the sums are read from, yet the money is gone. One key per revert
 * (`strand.spent_off_branch.<revert id>`: a retried revert writes the same key, a redo deletes it as
 * its turns are back on the branch). One key each, because a metadata patch replaces whole keys.
 */
export const OFF_BRANCH_SPENDING_PREFIX = 'strand.spent_off_branch.';

/** What the session's undone turns spent (zero when none), from its metadata. */
export function offBranchSpending(metadata: Record<string, unknown> | undefined): Usage {
  const usages = Object.entries(metadata ?? {}).flatMap(([key, value]) => {
    if (!key.startsWith(OFF_BRANCH_SPENDING_PREFIX)) return [];
    const parsed = usageSchema.safeParse(value);
    return parsed.success ? [parsed.data] : [];
  });
  return addUp(usages);
}

/** The sum of what some entries cost. */
export function spendingOfEntries(items: ReadonlyArray<Pick<MessageItem, 'message' | 'custom'>>): Usage {
  return addUp(items.flatMap((item) => spendingOfEntry(item) ?? []));
}

function addUp(usages: readonly Usage[]): Usage {
  const total = { input: 0, output: 0, cache_read: 0, cache_write: 0, cost_usd: 0 };
  for (const u of usages) {
    total.input += u.input ?? 0;
    total.output += u.output ?? 0;
    total.cache_read += u.cache_read ?? 0;
    total.cache_write += u.cache_write ?? 0;
    total.cost_usd += u.cost_usd ?? 0;
  }
  return total;
}
