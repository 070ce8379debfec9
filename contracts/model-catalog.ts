import { z } from 'zod';
import { modelIdOf, parseModelId } from './models';
import { thinkingLevelSchema, type ThinkingLevel } from './session-settings';
import builtinCatalogData from './model-catalog.json';

/**
 * The model catalog: what strand knows about each `<provider>/<model>` (limits, prices, abilities), so
 * usage carries a cost and adapters know what a model accepts. The built-in data lives in
 * model-catalog.json; users add or override entries with their own file (STRAND_MODELS_FILE).
 * Ids outside the catalog still work: they get default limits and are flagged `known: false`.
 */

const tokens = z.number().int().positive();
const usdPerMillion = z.number().nonnegative();

/** Prices in USD per million tokens; cache prices default to the input price when left out. */
const modelPriceSchema = z.object({
  input: usdPerMillion,
  output: usdPerMillion,
  cache_read: usdPerMillion.optional(),
  cache_write: usdPerMillion.optional(),
});

const modelCatalogEntrySchema = z.object({
  provider: z.string().regex(/^[a-z0-9_-]+$/, 'provider ids are lower-case letters, digits, _ and -'),
  /** The provider's own model id; `*` matches any id of the provider that has no entry of its own. */
  id: z.string().regex(/^(\*|[A-Za-z0-9._:-]+)$/, 'model ids are letters, digits and . _ : -'),
  name: z.string().min(1),
  context_window: tokens,
  max_output_tokens: tokens,
  /** Unknown price: usage is priced at 0 and flagged. */
  price: modelPriceSchema.nullable().default(null),
  supports: z
    .object({
      thinking: z.boolean().default(false),
      tools: z.boolean().default(true),
      images: z.boolean().default(false),
      /**
       * Whether the model continues a final assistant message it is given (assistant prefill): a model
       * step retried after a crash then goes on from the text clients already have instead of
       * streaming it again. Left out: {@link continuesPrefill}'s default for the provider.
       */
      prefill: z.boolean().optional(),
    })
    .prefault({}),
  /** Thinking levels the model accepts, lowest first (`off` only if thinking can be switched off). */
  thinking_levels: z.array(thinkingLevelSchema).optional(),
  /**
   * How an Anthropic model is asked to think: a token budget per level (`budget`, the default), or
   * `adaptive` with an effort per level (models on which budgets are deprecated).
   */
  thinking_mode: z.enum(['budget', 'adaptive']).optional(),
  /** The model a fresh session gets when this provider is the first one configured. */
  default: z.boolean().optional(),
});
export type ModelCatalogEntry = z.infer<typeof modelCatalogEntrySchema>;

export const modelCatalogFileSchema = z.object({
  version: z.literal(1).default(1),
  models: z.array(modelCatalogEntrySchema),
});
export type ModelCatalog = z.infer<typeof modelCatalogFileSchema>;

/** A catalog entry as looked up: `known: false` when the id is not in the catalog (default limits). */
export type CatalogModel = ModelCatalogEntry & { known: boolean };

/** Limits for ids the catalog does not name: conservative enough for any current model. */
const DEFAULT_CONTEXT_WINDOW = 128_000;
const DEFAULT_MAX_OUTPUT_TOKENS = 8_192;

/** The catalog shipped with strand (validated once, at import). */
export const builtinModelCatalog: ModelCatalog = modelCatalogFileSchema.parse(builtinCatalogData);

/**
 * Providers whose API continues a final assistant message: Anthropic Messages does (without extended
 * thinking, which the adapter turns off for such a request), the scripted provider does by design.
 * OpenAI's own Chat Completions API does not; OpenAI-compatible servers differ (llama.cpp and Ollama
 * continue it, vLLM needs `continue_final_message`), so `openai` models default to false and a
 * compatible server is switched on per model here or for the whole provider with STRAND_OPENAI_PREFILL.
 */
const PREFILL_BY_PROVIDER: Record<string, boolean> = { anthropic: true, scripted: true };

/**
 * Whether a retried step may continue this model's answer from a prefill: the entry's
 * `supports.prefill`, else the adapter's own default (an adapter registered under another id knows
 * its API), else the provider's default above.
 */
export function continuesPrefill(entry: Pick<ModelCatalogEntry, 'provider' | 'supports'>, adapterDefault?: boolean): boolean {
  return entry.supports.prefill ?? adapterDefault ?? PREFILL_BY_PROVIDER[entry.provider] ?? false;
}

/** Later catalogs' entries replace earlier ones with the same provider and id; new ones are added. */
export function mergeCatalogs(base: ModelCatalog, ...overrides: ModelCatalog[]): ModelCatalog {
  const byKey = new Map<string, ModelCatalogEntry>();
  for (const catalog of [base, ...overrides]) for (const m of catalog.models) byKey.set(modelIdOf(m.provider, m.id), m);
  return { version: 1, models: [...byKey.values()] };
}

/**
 * The entry for a `<provider>/<model>` reference: the exact entry, else the provider's `*` entry
 * (under the asked id), else default limits with unknown price, flagged `known: false`.
 */
export function lookupModel(catalog: ModelCatalog, modelRef: string): CatalogModel {
  const { provider, model } = parseModelId(modelRef);
  const exact = catalog.models.find((m) => m.provider === provider && m.id === model);
  if (exact) return { ...exact, known: true };
  const wildcard = catalog.models.find((m) => m.provider === provider && m.id === '*');
  if (wildcard) return { ...wildcard, id: model, name: `${wildcard.name} (${model})`, default: undefined, known: true };
  return {
    provider,
    id: model,
    name: model,
    context_window: DEFAULT_CONTEXT_WINDOW,
    max_output_tokens: DEFAULT_MAX_OUTPUT_TOKENS,
    price: null,
    supports: { thinking: false, tools: true, images: false },
    known: false,
  };
}

/**
 * The full reference for an id a client sent without its provider (`gpt-5-mini` →
 * `openai/gpt-5-mini`); the first catalog entry with that id wins. References that already name a
 * provider are returned as they are; ids the catalog does not know give undefined.
 */
export function resolveBareModelId(catalog: ModelCatalog, id: string): string | undefined {
  if (id.includes('/')) return id;
  const entry = catalog.models.find((m) => m.id === id);
  return entry ? modelIdOf(entry.provider, entry.id) : undefined;
}

/** The provider's default model reference (an entry flagged `default`, else its first entry). */
export function defaultModelFor(catalog: ModelCatalog, provider: string): string | undefined {
  const own = catalog.models.filter((m) => m.provider === provider && m.id !== '*');
  const entry = own.find((m) => m.default) ?? own[0];
  return entry ? modelIdOf(entry.provider, entry.id) : undefined;
}

/** Token counts to price (the provider contract's usage, structurally). */
export interface UsageToPrice {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
}

/** Cost of a step's usage in USD; `priced: false` when the catalog has no price (cost 0). */
export function priceUsage(entry: Pick<ModelCatalogEntry, 'price'>, usage: UsageToPrice): { cost_usd: number; priced: boolean } {
  const p = entry.price;
  if (!p) return { cost_usd: 0, priced: false };
  const micro = usage.input * p.input + usage.output * p.output + usage.cache_read * (p.cache_read ?? p.input) + usage.cache_write * (p.cache_write ?? p.input);
  return { cost_usd: micro / 1_000_000, priced: true };
}

const LEVELS = thinkingLevelSchema.options;

/**
 * The level a model actually gets: the asked level if it supports it, else the nearest supported
 * level below it, else its lowest one (a model that always thinks cannot go below its minimum).
 * Models without thinking always get `off`.
 */
export function clampThinkingLevel(entry: Pick<ModelCatalogEntry, 'supports' | 'thinking_levels'>, level: ThinkingLevel): ThinkingLevel {
  if (!entry.supports.thinking) return 'off';
  const supported = entry.thinking_levels?.length ? entry.thinking_levels : LEVELS;
  if (supported.includes(level)) return level;
  const asked = LEVELS.indexOf(level);
  const below = supported.filter((l) => LEVELS.indexOf(l) < asked);
  const sorted = (ls: ThinkingLevel[]) => [...ls].sort((a, b) => LEVELS.indexOf(a) - LEVELS.indexOf(b));
  return sorted(below).pop() ?? sorted(supported)[0] ?? 'off';
}
