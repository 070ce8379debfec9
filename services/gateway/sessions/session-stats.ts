import { lookupModel, type ModelCatalog } from '../../../contracts/model-catalog';
import type { StoreClient } from '../../../contracts/session-store/client';
import { offBranchSpending, spendingOfEntry } from '../../../contracts/spending';
import { addUsage, contextShare, contextTokens, zeroUsage, type UsageTotals } from '../events/usage-totals';

;

export interface SessionStats {
  usage: UsageTotals;
  /** Messages on the active branch, by role. */
  messages: { user: number; assistant: number; tool_results: number; total: number };
  /** Model steps recorded (assistant messages) and turns started. */
  steps: number;
  turns: number;
  /** What the last step's context took against the model's window. */
  context: { tokens: number; window: number; share: number };
}

/**
 * Reads the active branch once and adds up what it cost: tokens in and out (and cached), dollars,
 * messages by role, steps, and how full the context was at the last step. `turn` narrows to one turn.
 */
export async function sessionStats(store: StoreClient, sessionId: string, opts: { model: string; catalog: ModelCatalog; turn?: string }): Promise<SessionStats> {
  // What turns a revert undid spent stays spent (contracts/spending.ts); a one-turn view leaves it out.
  let usage: UsageTotals = opts.turn === undefined ? addUsage(zeroUsage(), offBranchSpending((await store.get({ session_id: sessionId }))?.meta.metadata)) : zeroUsage();
  const messages = { user: 0, assistant: 0, tool_results: 0, total: 0 };
  const turns = new Set<string>();
  let steps = 0;
  let lastContext = 0;
  let cursor: string | undefined;
  do {
    const page = await store.messages({ session_id: sessionId, limit: 500, include_custom: true, ...(cursor ? { cursor } : {}) });
    if (!page) break;
    for (const item of page.messages) {
      if (opts.turn !== undefined && item.origin?.turn !== opts.turn) continue;
      // Steps, sub-agents and compactions: what the budget check counts too (contracts/spending.ts).
      const spent = spendingOfEntry(item);
      if (spent) usage = addUsage(usage, spent);
      const m = item.message;
      if (!m) continue;
      if (typeof item.origin?.turn === 'string') turns.add(item.origin.turn);
      messages.total += 1;
      if (m.role === 'user') messages.user += 1;
      if (m.role === 'function_result') messages.tool_results += 1;
      if (m.role !== 'assistant') continue;
      messages.assistant += 1;
      steps += 1;
      if (m.usage) lastContext = contextTokens(m.usage);
    }
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  usage.cost_usd = Math.round(usage.cost_usd * 1e6) / 1e6;
  let window = 0;
  try {
    window = lookupModel(opts.catalog, opts.model).context_window;
  } catch {
    // A malformed model id has no window.
  }
  return { usage, messages, steps, turns: turns.size, context: { tokens: lastContext, window, share: contextShare(lastContext, window) } };
}
