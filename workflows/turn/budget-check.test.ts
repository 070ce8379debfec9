import { budgetReached, effectiveLimit, hasCap } from './budget-check';

describe('budget check', () => {
  it('no caps: never reached, whatever was spent', () => {
    const limit = effectiveLimit(undefined, undefined);
    expect(limit).toEqual({ max_cost_usd: null, max_tokens: null });
    expect(hasCap(limit)).toBe(false);
    expect(budgetReached({ cost_usd: 1e6, tokens: 1e9 }, limit)).toBe(false);
  });

  it('null caps count as none', () => {
    const limit = effectiveLimit({ max_cost_usd: null, max_tokens: null }, { max_tokens: null });
    expect(hasCap(limit)).toBe(false);
  });

  it('a dollar cap is reached when spending meets it, not before', () => {
    const limit = effectiveLimit({ max_cost_usd: 0.5 }, undefined);
    expect(budgetReached({ cost_usd: 0.4999, tokens: 10 }, limit)).toBe(false);
    expect(budgetReached({ cost_usd: 0.5, tokens: 10 }, limit)).toBe(true);
    expect(budgetReached({ cost_usd: 0.7, tokens: 10 }, limit)).toBe(true);
  });

  it('a token cap is checked on its own, whichever cap is reached first stops the turn', () => {
    const limit = effectiveLimit({ max_cost_usd: 10, max_tokens: 1000 }, undefined);
    expect(budgetReached({ cost_usd: 0.01, tokens: 999 }, limit)).toBe(false);
    expect(budgetReached({ cost_usd: 0.01, tokens: 1000 }, limit)).toBe(true);
    expect(budgetReached({ cost_usd: 10, tokens: 0 }, limit)).toBe(true);
  });

  it('the lower of the session cap and the prompt cap applies, per cap', () => {
    expect(effectiveLimit({ max_cost_usd: 2, max_tokens: 500 }, { max_cost_usd: 1, max_tokens: 900 })).toEqual({ max_cost_usd: 1, max_tokens: 500 });
    expect(effectiveLimit({ max_cost_usd: 2 }, { max_tokens: 900 })).toEqual({ max_cost_usd: 2, max_tokens: 900 });
    expect(effectiveLimit(undefined, { max_cost_usd: 0.25 })).toEqual({ max_cost_usd: 0.25, max_tokens: null });
  });

  it('a zero cap stops before any step', () => {
    expect(budgetReached({ cost_usd: 0, tokens: 0 }, effectiveLimit({ max_tokens: 0 }, undefined))).toBe(true);
  });
});
