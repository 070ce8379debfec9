import { ZodError } from 'zod';
import { applySettingsChange } from '../../../contracts/settings-change';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import type { StoreClient } from '../../../contracts/session-store/client';
import type { SessionMeta } from '../../../contracts/session-store/schemas';
import { readSessionRecord } from '../../../contracts/session-record';
import { RUNTIME_KEYS } from '../../../contracts/session-settings';
import type { SessionSettings } from '../../../contracts/session-settings';
import type { SettingsChange } from '../../../contracts/session-workflow';
import type { SessionCommands } from '../temporal/session-commands';
import type { ModelChoice } from './model-choice';
import { startInfo } from './start-info';

/** A settings change as clients ask for it: the workflow's change plus "the next model / thinking level". */
export type ClientSettingsChange = SettingsChange & { cycle_model?: boolean; cycle_thinking?: boolean };

export interface SettingsChangeDeps {
  store: StoreClient;
  commands: SessionCommands;
  models: ModelChoice;
}

/** The settings a session's workflow has, or loads when it comes back (the one decoder of stored metadata). */
export function storedSettings(meta: SessionMeta): SessionSettings {
  return readSessionRecord(meta.metadata).settings;
}

/**
 * Changes settings; the model is checked against the catalog and configured providers, the thinking
 * level clamped to the model. A running session's workflow applies them; a dormant one's are
 * written to the store (changeStoredSettings). `stored` is what the store holds afterwards, so the
 * caller's record of the session stays true for the rest of its action.
 */
export async function changeSettings(
  deps: SettingsChangeDeps,
  meta: SessionMeta,
  change: ClientSettingsChange,
): Promise<{ settings: SessionSettings & { notice?: string }; stored?: SessionSettings }> {
  const { cycle_model, cycle_thinking, ...rest } = change;
  const live = await deps.commands.live(meta.session_id);
  const current = live?.settings ?? storedSettings(meta);
  let notice: string | undefined;
  const next: SettingsChange = { ...rest };
  if (cycle_model) next.model = deps.models.next(current.model);
  if (next.model) {
    const chosen = deps.models.resolve(next.model);
    next.model = chosen.ref;
    if (!chosen.entry.known) notice = `${chosen.ref} is not in the model catalog: default limits (${chosen.entry.context_window} tokens) and no price`;
  }
  const model = next.model ?? current.model;
  const level = cycle_thinking ? deps.models.nextLevel(model, current.thinking_level) : (next.thinking_level ?? current.thinking_level);
  next.thinking_level = deps.models.clamp(model, level);
  if (live) return { settings: { ...(await deps.commands.setSettings(startInfo(meta), next)), ...(notice ? { notice } : {}) } };
  const { settings, stored } = await changeStoredSettings(deps, meta, current, next);
  return { settings: { ...settings, ...(notice ? { notice } : {}) }, stored };
}

/**
 * A dormant session's settings change in the store, where its workflow loads them when it comes
 * back: no worker is needed, and the session stays dormant. Had the workflow come back meanwhile
 * (a prompt from elsewhere) with the settings from before the write, the change goes to it as well:
 * sent twice, it is the same change.
 */
async function changeStoredSettings(deps: SettingsChangeDeps, meta: SessionMeta, current: SessionSettings, change: SettingsChange): Promise<{ settings: SessionSettings; stored: SessionSettings }> {
  let settings: SessionSettings;
  try {
    settings = applySettingsChange(current, change);
  } catch (err) {
    if (err instanceof ZodError) throw new StrandError(ErrorCode.INVALID_REQUEST, err.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    throw err;
  }
  await deps.store.setMeta({ session_id: meta.session_id, metadata_patch: { [RUNTIME_KEYS.settings]: settings } });
  if (await deps.commands.live(meta.session_id)) return { settings: await deps.commands.setSettings(startInfo(meta), change), stored: settings };
  return { settings, stored: settings };
}
