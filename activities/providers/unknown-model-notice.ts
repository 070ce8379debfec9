import type { StorePort } from '../store/store-port';

/**
 * The session's metadata key naming the model it was last told is not in the model catalog. Only the
 * model step writes it, as a key-level patch (so no other writer's keys are touched): it is the
 * record of a notice given, not a setting, and it keeps the notice to once per session and model
 * instead of once per turn — without a workflow command, so replayed histories are unchanged.
 */
const UNKNOWN_MODEL_TOLD_KEY = 'strand.unknown_model_told';

/**
 * Tells the session (through `tell`) that `model` is not in the catalog, unless it was told so about
 * this model already; a session switched to another unknown model is told again. A store that cannot
 * be read or written does not stop the step: the notice is then given (better twice than never).
 */
export async function tellUnknownModelOnce(store: StorePort, sessionId: string, model: string, tell: () => Promise<void>): Promise<void> {
  const told = await store.get({ session_id: sessionId }).then(
    (got) => got?.meta.metadata?.[UNKNOWN_MODEL_TOLD_KEY],
    () => undefined,
  );
  if (told === model) return;
  await tell();
  await store.setMeta({ session_id: sessionId, metadata_patch: { [UNKNOWN_MODEL_TOLD_KEY]: model } }).catch(() => undefined);
}
