import { ErrorCode, StrandError } from '../../../contracts/errors';
import { clampThinkingLevel, lookupModel, resolveBareModelId, type CatalogModel, type ModelCatalog } from '../../../contracts/model-catalog';
import { modelIdOf, modelIdSchema, parseModelId } from '../../../contracts/models';
import { thinkingLevelSchema, type ThinkingLevel } from '../../../contracts/session-settings';

/**
 * Which models a session may switch to, and what thinking level each gets: the catalog's models of
 * configured providers (plus `scripted`, always there); any other id of a configured provider is
 * accepted too (a local server's model), flagged unknown so the caller can say so.
 */
export class ModelChoice {
  constructor(
    readonly catalog: ModelCatalog,
    private readonly configured: readonly string[],
  ) {}

  private usable(provider: string): boolean {
    return provider === 'scripted' || this.configured.includes(provider);
  }

  /** A full reference for what a client sent (`provider/model`, or a bare catalog id); UNKNOWN_MODEL otherwise. */
  resolve(ref: string): { ref: string; entry: CatalogModel } {
    const full = resolveBareModelId(this.catalog, ref) ?? ref;
    if (!modelIdSchema.safeParse(full).success) throw new StrandError(ErrorCode.UNKNOWN_MODEL, `unknown model "${ref}": use <provider>/<model>, e.g. anthropic/claude-sonnet-4-5`);
    const { provider } = parseModelId(full);
    if (!this.usable(provider)) {
      const have = ['scripted', ...this.configured].join(', ');
      throw new StrandError(ErrorCode.UNKNOWN_MODEL, `provider "${provider}" is not configured (configured: ${have}); set its API key for the worker and the gateway`);
    }
    return { ref: full, entry: lookupModel(this.catalog, full) };
  }

  /** The models to cycle through, in catalog order. */
  cycle(): string[] {
    return this.catalog.models.filter((m) => m.id !== '*' && this.usable(m.provider)).map((m) => modelIdOf(m.provider, m.id));
  }

  /** The model after `current` in the cycle (the first one when current is not in it). */
  next(current: string): string {
    const list = this.cycle();
    if (list.length === 0) throw new StrandError(ErrorCode.UNKNOWN_MODEL, 'no model to switch to');
    return list[(list.indexOf(current) + 1) % list.length]!;
  }

  clamp(modelRef: string, level: ThinkingLevel): ThinkingLevel {
    return clampThinkingLevel(lookupModel(this.catalog, modelRef), level);
  }

  /** The thinking level after `current` among those the model supports. */
  nextLevel(modelRef: string, current: ThinkingLevel): ThinkingLevel {
    const supported = thinkingLevelSchema.options.filter((l) => this.clamp(modelRef, l) === l);
    return supported[(supported.indexOf(current) + 1) % supported.length] ?? 'off';
  }
}
