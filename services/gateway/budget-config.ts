import type { Budget } from '../../contracts/session-settings';

/** One cap from the environment: unset or blank is no cap; anything but a non-negative number stops the gateway. */
function capFromEnv(name: string, env: NodeJS.ProcessEnv, integer: boolean): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (integer && !Number.isInteger(value))) {
    throw new Error(`${name}=${raw} is not a ${integer ? 'whole number of tokens' : 'dollar amount'} (e.g. ${integer ? '200000' : '5'}); unset it for no cap`);
  }
  return value;
}

/**
 * The caps new sessions start with (docs/budgets.md): STRAND_BUDGET_USD and STRAND_BUDGET_TOKENS,
 * undefined when neither is set. Sessions change theirs with `PATCH …/settings {"budget": …}`.
 */
export function budgetFromEnv(env: NodeJS.ProcessEnv): Budget | undefined {
  const usd = capFromEnv('STRAND_BUDGET_USD', env, false);
  const tokens = capFromEnv('STRAND_BUDGET_TOKENS', env, true);
  if (usd === undefined && tokens === undefined) return undefined;
  return { ...(usd !== undefined ? { max_cost_usd: usd } : {}), ...(tokens !== undefined ? { max_tokens: tokens } : {}) };
}
