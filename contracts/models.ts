import { z } from 'zod';

/**
 * Model ids are `<provider>/<model>` (e.g. `scripted/echo`, `anthropic/claude-sonnet-4-5`), so one
 * string names both the provider registry entry and the provider's own model id.
 */
export const modelIdSchema = z
  .string()
  .regex(/^[a-z0-9_-]+\/[A-Za-z0-9._:-]+$/, 'model ids look like <provider>/<model>, e.g. scripted/echo');
export type ModelId = z.infer<typeof modelIdSchema>;

/** Splits a model id into its provider and the provider-specific model name. */
export function parseModelId(id: string): { provider: string; model: string } {
  const slash = id.indexOf('/');
  if (slash <= 0 || slash === id.length - 1) throw new Error(`model id "${id}" is not <provider>/<model>`);
  return { provider: id.slice(0, slash), model: id.slice(slash + 1) };
}

/** The model every session gets when no provider key is configured: deterministic and offline. */
export const FALLBACK_MODEL = 'scripted/echo';
