import type { SessionMeta } from '../../../contracts/session-store/schemas';
import { readSessionRecord } from '../../../contracts/session-record';
import { SESSION_METADATA_KEYS as KEYS } from '../../../contracts/session-settings';

/** The session's owner as its metadata names it; none for sessions made with auth off. */
export function ownerOf(meta: SessionMeta | undefined): string | undefined {
  const owner = meta?.metadata?.[KEYS.owner];
  return typeof owner === 'string' ? owner : undefined;
}

/** What a session's workflow is started with (SessionCommands), read from its store record. */
export function startInfo(meta: SessionMeta) {
  const record = readSessionRecord(meta.metadata);
  const owner = ownerOf(meta);
  return { session_id: meta.session_id, project_path: record.project_path, model: record.settings.model, ...(owner ? { owner } : {}) };
}
