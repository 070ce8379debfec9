import { z } from 'zod';

/**
 * Model ids are `<provider>/<model>` (e.g. `scripted/echo`, `anthropic/claude-sonnet-4-5`), so one
 * string names both the provider registry entry and the provider's own model id.
 */
export const modelIdSchema = z
  .string()
  .regex(/^[a-z0-9_-]+\/[A-Za-z0-9._:-]+$/, 'model ids look like <provider>/<model>, e.g. scripted/echo');

/**
 * The provider and the provider-specific model name of a `<provider>/<model>` reference (split at
 * the first slash: a model name may contain more), or undefined for anything else. For readers that
 * show whatever a record holds; code that needs a valid id uses parseModelId.
 */
export function splitModelId(id: string): { provider: string; model: string } | undefined {
  const slash = id.indexOf('/');
  if (slash <= 0 || slash === id.length - 1) return undefined;
  return { provider: id.slice(0, slash), model: id.slice(slash + 1) };
}

/**
 * A model id as a display shows it: provider and name, or no provider and the whole text when the
 * record holds something that is not `<provider>/<model>` (what EDN's `model-provider`/`model-id` say).
 */
export function modelParts(id: string): { provider: string; model: string } {
  return splitModelId(id) ?? { provider: '', model: id };
}

/** Splits a model id into its provider and the provider-specific model name; throws for anything else. */
export function parseModelId(id: string): { provider: string; model: string } {
  const parts = splitModelId(id);
  if (!parts) throw new Error(`model id "${id}" is not <provider>/<model>`);
  return parts;
}

/** The reference for a provider's model, the inverse of parseModelId (`openai` + `gpt-5` → `openai/gpt-5`). */
export function modelIdOf(provider: string, model: string): string {
  return `${provider}/${model}`;
}

/** The model every session gets when no provider key is configured: deterministic and offline. */
export const FALLBACK_MODEL = 'scripted/echo';
