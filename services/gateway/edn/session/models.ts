import type { SessionService } from '../../sessions/session-service';
import { availableModels } from '../../sessions/model-list';
import type { EdnMap } from '../edn-value';

export { availableModels, modelInfo } from '../../sessions/model-list';

/** The models a session may switch to, as `get_available_models` and the `:models` attribute answer them. */
export async function modelList(sessions: SessionService): Promise<EdnMap[]> {
  return (await availableModels(sessions)).map((m) => ({ provider: m.provider, id: m.id, name: m.name, reasoning: m.reasoning, 'context-window': m.contextWindow }));
}

/** `provider/id` from what a client sent: a provider and an id, or an id that already names its provider. */
export function modelRef(provider: string | undefined, modelId: string): string {
  if (modelId.includes('/') || !provider) return modelId;
  return `${provider}/${modelId}`;
}
