import type { Budget } from '../../contracts/session-settings';

/** What the session has spent: the recorded steps' cost in dollars and their tokens (docs/budgets.md). */
export interface Spent {
  cost_usd: number;
  tokens: number;
}

/** The caps in force, null for none (the shape `budget.exceeded` announces). */
export interface EffectiveLimit {
  max_cost_usd: number | null;
  max_tokens: number | null;
}

const lower = (a: number | null | undefined, b: number | null | undefined): number | null => {
  const caps = [a, b].filter((v): v is number => typeof v === 'number');
  return caps.length > 0 ? Math.min(...caps) : null;
};

/** The session's caps and the prompt's own ("per job"): for each, the lower one applies; null where neither caps. */
export function effectiveLimit(session: Budget | undefined, prompt: Budget | undefined): EffectiveLimit {
  return { max_cost_usd: lower(session?.max_cost_usd, prompt?.max_cost_usd), max_tokens: lower(session?.max_tokens, prompt?.max_tokens) };
}

export function hasCap(limit: EffectiveLimit): boolean {
  return limit.max_cost_usd !== null || limit.max_tokens !== null;
}

/**
 * Whether the next model step may start. Conservative: a step's cost is only known once it has run,
 * so the turn stops as soon as spending has reached a cap (spent >= cap), never in the middle of a
 * step; one step can therefore end past the cap by what that step cost.
 */
export function budgetReached(spent: Spent, limit: EffectiveLimit): boolean {
  return (limit.max_cost_usd !== null && spent.cost_usd >= limit.max_cost_usd) || (limit.max_tokens !== null && spent.tokens >= limit.max_tokens);
}
