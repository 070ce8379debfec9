import * as wf from '@temporalio/workflow';
import { budgetReached, effectiveLimit, hasCap } from './budget-check';
import { local, type TurnState } from './turn-state';

/** A turn interrupted while it waited for a higher cap: it ends as an abort does (`aborted`). */
export class BudgetStop extends Error {
  constructor() {
    super('interrupted while waiting for a higher budget');
  }
}

/**
 * Before a model step (every attempt): a turn whose caps spending has reached waits in phase
 * `waiting_budget` after announcing `budget.exceeded`, until a raised cap (turnBudgetSignal) lets it
 * go on; an interrupt ends it (BudgetStop), an abort cancels the wait as it cancels everything. A
 * durable condition on signals, no timer: the wait survives worker restarts as an approval does. A
 * turn without caps does nothing here, so its history is what it was before budgets existed.
 */
export async function awaitBudget(turn: TurnState, step: number): Promise<void> {
  let limit = effectiveLimit(turn.budget, turn.input.budget);
  if (!hasCap(limit)) return;
  const spent = await local.sessionSpent({ session_id: turn.input.session_id });
  let waited = false;
  while (hasCap(limit) && budgetReached(spent, limit)) {
    // The step's `thinking` report left in this workflow task too: it must not reach the session after this one.
    if (!waited) await turn.reportsDelivered();
    waited = true;
    const caps = [limit.max_cost_usd !== null ? `$${limit.max_cost_usd}` : '', limit.max_tokens !== null ? `${limit.max_tokens} tokens` : ''].filter(Boolean).join(', ');
    await turn.report({ phase: 'waiting_budget', step, details: `budget reached: spent $${spent.cost_usd} and ${spent.tokens} tokens of ${caps}` });
    await turn.publish([{ type: 'budget.exceeded', turn_id: turn.turnId, step, spent_usd: spent.cost_usd, spent_tokens: spent.tokens, limit }]);
    const seen = turn.budgetVersion;
    await wf.condition(() => turn.budgetVersion !== seen || turn.interrupted);
    if (turn.budgetVersion === seen) throw new BudgetStop();
    limit = effectiveLimit(turn.budget, turn.input.budget);
  }
  // Streaming again: clients leave the budget notice as the step starts.
  if (waited) await turn.report({ phase: 'thinking', step, streaming: true });
}
