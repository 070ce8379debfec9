import type { AgentEvent } from '../../../contracts/agent-events';

type BudgetExceeded = Extract<AgentEvent, { type: 'budget.exceeded' }>;

/** The caps in force, as a person reads them: `$5, 200000 tokens`. */
function budgetCaps(limit: BudgetExceeded['limit']): string {
  const caps = [limit.max_cost_usd !== null ? `$${limit.max_cost_usd}` : '', limit.max_tokens !== null ? `${limit.max_tokens} tokens` : ''].filter(Boolean);
  return caps.join(', ') || 'no cap';
}

/**
 * The one line every transport without an event of its own shows for `budget.exceeded` (WebSocket
 * and EDN notices, ACP): what was spent against which cap, that the turn waits, and how to go on.
 */
export function budgetExceededMessage(e: BudgetExceeded, sessionId: string): string {
  const cap = e.limit.max_cost_usd !== null ? 'max_cost_usd' : 'max_tokens';
  return (
    `budget reached: spent $${e.spent_usd} and ${e.spent_tokens} tokens of ${budgetCaps(e.limit)}; the turn waits. ` +
    `Raise the budget to continue (PATCH /api/sessions/${sessionId}/settings {"budget": {"${cap}": …}}, or /budget in strand chat), or interrupt the turn to end it.`
  );
}
