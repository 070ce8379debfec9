import type { SessionService } from '../../sessions/session-service';
import type { EdnMap } from '../edn-value';
import { modelParts } from '../../../../contracts/models';

/** What the pickers and `get_available_models` show of a model. */
export interface ModelInfo {
  ref: string;
  provider: string;
  id: string;
  name: string;
  reasoning: boolean;
  contextWindow: number;
}

/** A model reference as the catalog knows it; a provider that is no longer configured still shows by name. */
export function modelInfo(sessions: SessionService, ref: string): ModelInfo {
  const { provider, model: id } = modelParts(ref);
  try {
    const { entry } = sessions.models.resolve(ref);
    return { ref, provider, id, name: entry.name, reasoning: entry.supports.thinking, contextWindow: entry.context_window };
  } catch {
    return { ref, provider, id, name: id, reasoning: false, contextWindow: 0 };
  }
}

/** The models a session may switch to (configured providers, `scripted` always), sorted by provider and id. */
export function availableModels(sessions: SessionService): ModelInfo[] {
  return sessions.models
    .cycle()
    .map((ref) => modelInfo(sessions, ref))
    .sort((a, b) => a.provider.localeCompare(b.provider) || a.id.localeCompare(b.id));
}

export function modelList(sessions: SessionService): EdnMap[] {
  return availableModels(sessions).map((m) => ({ provider: m.provider, id: m.id, name: m.name, reasoning: m.reasoning, 'context-window': m.contextWindow }));
}

/** `provider/id` from what a client sent: a provider and an id, or an id that already names its provider. */
export function modelRef(provider: string | undefined, modelId: string): string {
  if (modelId.includes('/') || !provider) return modelId;
  return `${provider}/${modelId}`;
}
