import { offBranchSpending, spendingOfEntry, tokensOf } from '../../contracts/spending';
import type { StorePort } from '../store/store-port';

/**
 * What a session has spent so far, for the turn's budget check (docs/budgets.md): the cost and
 * tokens (input, output, cache read and write) recorded in its conversation — every step of every
 * turn, its sub-agents and its compactions (contracts/spending.ts) — and of turns a revert undid. The same messages /stats and the session list add up, so what a client shows as
 * spent is what the check compares with the cap.
 */
export function createSessionSpent(store: Pick<StorePort, 'messages' | 'get'>) {
  return async function sessionSpent(input: { session_id: string }): Promise<{ cost_usd: number; tokens: number }> {
    // Turns a revert undid left the branch, not the bill (contracts/spending.ts).
    const undone = offBranchSpending((await store.get({ session_id: input.session_id }))?.meta.metadata);
    let cost = undone.cost_usd ?? 0;
    let tokens = tokensOf(undone);
    let cursor: string | undefined;
    do {
      const page = await store.messages({ session_id: input.session_id, limit: 500, include_custom: true, ...(cursor ? { cursor } : {}) });
      if (!page) break;
      for (const item of page.messages) {
        const u = spendingOfEntry(item);
        if (!u) continue;
        cost += u.cost_usd ?? 0;
        tokens += tokensOf(u);
      }
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    return { cost_usd: Math.round(cost * 1e6) / 1e6, tokens };
  };
}
