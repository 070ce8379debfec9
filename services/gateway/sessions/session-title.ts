import type { StoreClient } from '../../../contracts/session-store/client';
import type { SessionMeta } from '../../../contracts/session-store/schemas';

/**
 * A new session's title is its project folder's name until its first prompt: then the prompt's first
 * words, so that sessions of one folder read apart in every list (as other agents name theirs). Only
 * a title the gateway chose is replaced (this metadata key marks it); a title a client gave at
 * creation stays, and a name the user gives (`PATCH …/settings {name}`) is shown instead of either.
 */
export const PLACEHOLDER_TITLE_KEY = 'strand.placeholder_title';

const MAX_WORDS = 8;
const MAX_CHARS = 60;

/** The first words of a prompt's first non-empty line, at most MAX_CHARS long (an ellipsis when cut). */
export function titleFromPrompt(text: string): string {
  const line = text.split('\n').map((l) => l.replace(/\s+/g, ' ').trim()).find(Boolean) ?? '';
  const words = line.split(' ');
  let title = words.slice(0, MAX_WORDS).join(' ');
  let cut = words.length > MAX_WORDS;
  if (title.length > MAX_CHARS) {
    title = title.slice(0, MAX_CHARS - 1).replace(/\s+\S*$/, '') || title.slice(0, MAX_CHARS - 1);
    cut = true;
  }
  return cut ? `${title}…` : title;
}

/**
 * After a session's prompt was accepted: its placeholder title becomes the prompt's first words, and
 * the mark goes, so it happens once. A store that fails here costs the prompt nothing (the title stays).
 */
export async function titleFromFirstPrompt(store: StoreClient, meta: SessionMeta, text: string): Promise<SessionMeta> {
  if (meta.metadata?.[PLACEHOLDER_TITLE_KEY] !== true) return meta;
  const title = titleFromPrompt(text);
  if (!title) return meta;
  try {
    return (await store.setMeta({ session_id: meta.session_id, title, metadata_patch: { [PLACEHOLDER_TITLE_KEY]: null } })).meta;
  } catch {
    return meta;
  }
}

/**
 * The same for a prompt sent without a store read (SessionService.prompt), once it was accepted as
 * the session's first turn: the record is read for its mark first. A store that fails costs nothing.
 */
export async function titleAfterFirstPrompt(store: StoreClient, sessionId: string, text: string): Promise<void> {
  const got = await store.get({ session_id: sessionId }).catch(() => undefined);
  if (got) await titleFromFirstPrompt(store, got.meta, text);
}
