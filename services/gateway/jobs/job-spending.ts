import type { StoreClient } from '../../../contracts/session-store/client';
import { spendingOfEntry, tokensOf } from '../../../contracts/spending';

/**
 * A job's session read once: what it spent so far (steps, dollars, tokens) and which tool calls its
 * model made. An unknown session (the job has not made it yet) spent nothing.
 */
export async function jobSessionSpending(store: StoreClient, sessionId: string): Promise<{ steps: number; cost_usd: number; tokens: number; toolCalls: Set<string> }> {
  let steps = 0;
  let cost = 0;
  let tokens = 0;
  const toolCalls = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await store.messages({ session_id: sessionId, limit: 500, include_custom: true, ...(cursor ? { cursor } : {}) }).catch((err: { code?: string }) => {
      if (err?.code === 'session/not_found') return null;
      throw err;
    });
    if (!page) break;
    for (const item of page.messages) {
      const spent = spendingOfEntry(item);
      if (spent) {
        cost += spent.cost_usd ?? 0;
        tokens += tokensOf(spent);
      }
      const m = item.message;
      if (m?.role !== 'assistant') continue;
      steps += 1;
      for (const b of m.content) if (b.type === 'function_call') toolCalls.add(b.id);
    }
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return { steps, cost_usd: Math.round(cost * 1e6) / 1e6, tokens, toolCalls };
}
