import { budgetFromEnv } from './budget-config';

describe('budget defaults from the environment', () => {
  it('unset or blank: no cap', () => {
    expect(budgetFromEnv({})).toBeUndefined();
    expect(budgetFromEnv({ STRAND_BUDGET_USD: ' ', STRAND_BUDGET_TOKENS: '' })).toBeUndefined();
  });

  it('reads each cap on its own', () => {
    expect(budgetFromEnv({ STRAND_BUDGET_USD: '2.5' })).toEqual({ max_cost_usd: 2.5 });
    expect(budgetFromEnv({ STRAND_BUDGET_TOKENS: '100000' })).toEqual({ max_tokens: 100000 });
    expect(budgetFromEnv({ STRAND_BUDGET_USD: '0', STRAND_BUDGET_TOKENS: '5' })).toEqual({ max_cost_usd: 0, max_tokens: 5 });
  });

  it('an invalid value stops the gateway with a message naming the variable', () => {
    expect(() => budgetFromEnv({ STRAND_BUDGET_USD: 'five' })).toThrow(/STRAND_BUDGET_USD=five is not a dollar amount/);
    expect(() => budgetFromEnv({ STRAND_BUDGET_USD: '-1' })).toThrow(/STRAND_BUDGET_USD/);
    expect(() => budgetFromEnv({ STRAND_BUDGET_TOKENS: '1.5' })).toThrow(/STRAND_BUDGET_TOKENS=1.5 is not a whole number of tokens/);
  });
});
