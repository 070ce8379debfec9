import { ErrorCode, StrandError } from '../../../contracts/errors';
import { lookupModel, type ModelCatalog } from '../../../contracts/model-catalog';
import type { PromptImageStore } from '../../../contracts/prompt-image-store';
import type { PromptImageRef } from '../../../contracts/prompt-images';
import type { SessionMeta } from '../../../contracts/session-store/schemas';
import type { PromptCommand } from '../../../contracts/session-workflow';
import type { SessionCommands } from '../temporal/session-commands';
import { decodePromptImages, type RawPromptImage } from './prompt-images';
import { storedSettings } from './session-settings-change';

export interface PromptImageIntakeDeps {
  /** For the model the next turn runs with (a running workflow's settings win over the stored ones). */
  commands: Pick<SessionCommands, 'live'>;
  catalog: ModelCatalog;
  /** Where images are kept until the turn reads them; without it prompts with images are refused. */
  images?: PromptImageStore;
}

/**
 * A prompt's images (HTTP `images[]`, ACP image blocks) checked, refused when the session's model
 * takes none, and stored before the prompt goes to the workflow, which gets their references only
 * (docs/images.md). Nothing is stored when any check fails.
 */
export class PromptImageIntake {
  constructor(private readonly deps: PromptImageIntakeDeps) {}

  async store(meta: SessionMeta, prompt: PromptCommand, images: readonly RawPromptImage[]): Promise<PromptImageRef[]> {
    if (prompt.behavior === 'steer') throw new StrandError(ErrorCode.INVALID_REQUEST, 'images cannot be sent as steering: send them with a prompt');
    const decoded = decodePromptImages(images);
    // The model the next turn runs with: the running workflow's settings (a model just switched), else the stored ones.
    const model = ((await this.deps.commands.live(meta.session_id))?.settings ?? storedSettings(meta)).model;
    const entry = lookupModel(this.deps.catalog, model);
    // Ids outside the catalog get the images: the provider itself says whether the model takes them.
    if (entry.known && !entry.supports.images) {
      throw new StrandError(ErrorCode.IMAGES_NOT_SUPPORTED, `${model} does not take images (its catalog entry says supports.images: false): switch to a model that does, or send text only`, { model });
    }
    const store = this.deps.images;
    if (!store) throw new StrandError(ErrorCode.UNAVAILABLE, 'this gateway has no image store: prompts with images are not taken');
    try {
      return await Promise.all(decoded.map((d) => store.put(d.bytes, d.mime)));
    } catch (err) {
      throw new StrandError(ErrorCode.UNAVAILABLE, `the prompt's images could not be stored: ${err instanceof Error ? err.message : String(err)}`, undefined, { cause: err });
    }
  }
}
