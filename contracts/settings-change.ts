import { mergeBudget, type SessionSettings } from './session-settings';
import { settingsChangeSchema, type SettingsChange } from './session-workflow';

/**
 * The settings after `change`: given fields replace, the approval policy merges field by field, a
 * budget change merges cap by cap (null clears one; no cap left, no `budget` key). The one rule, used
 * by the session workflow for a running session and by the gateway for a dormant one (its settings
 * are written to the store, where the workflow loads them when it comes back). Throws zod's error
 * for a change the schema refuses.
 */
export function applySettingsChange(settings: SessionSettings, change: SettingsChange): SessionSettings {
  const { approval, budget, ...rest } = settingsChangeSchema.parse(change);
  const next: SessionSettings = { ...settings, ...rest, ...(approval ? { approval: { ...settings.approval, ...approval } } : {}) };
  if (!budget) return next;
  const { budget: _old, ...others } = next;
  const merged = mergeBudget(next.budget, budget);
  return { ...others, ...(merged ? { budget: merged } : {}) };
}
