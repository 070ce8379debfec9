import { modelParts } from '../../../contracts/models';
import type { ModelChoice } from './model-choice';
import type { RunnableModels } from './stack-models';

/** What model pickers (EDN's, ACP's config options and `/model`) show of a model. */
export interface ModelInfo {
  ref: string;
  provider: string;
  id: string;
  name: string;
  reasoning: boolean;
  contextWindow: number;
}

/** A model reference as the catalog knows it; a provider that is no longer configured still shows by name. */
export function modelInfo(models: ModelChoice, ref: string): ModelInfo {
  const { provider, model: id } = modelParts(ref);
  try {
    const { entry } = models.resolve(ref);
    return { ref, provider, id, name: entry.name, reasoning: entry.supports.thinking, contextWindow: entry.context_window };
  } catch {
    return { ref, provider, id, name: id, reasoning: false, contextWindow: 0 };
  }
}

/**
 * The models a session may switch to, as every picker offers them (ACP's, EDN's, `GET /api/models`):
 * StackModels decides (configured providers' catalog models, a local server's own models, `scripted`
 * always), sorted by provider and id.
 */
export async function availableModels(sessions: { runnable: RunnableModels }): Promise<ModelInfo[]> {
  return (await sessions.runnable.runnable()).models;
}
