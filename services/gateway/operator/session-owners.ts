import type { StoreClient } from '../../../contracts/session-store/client';
import { SESSION_METADATA_KEYS as KEYS } from '../../../contracts/session-settings';

/** Sessions whose owner is remembered; the oldest is forgotten past this. */
const REMEMBERED = 2_000;

/**
 * Who owns a session, read from the store once per session: a session's owner never changes, and the
 * operator view asks about the same few dozen failed sessions every five seconds per open page.
 * `null`: the store does not have the session (deleted); `undefined`: it has no owner (created
 * without tokens).
 */
export class SessionOwners {
  private readonly known = new Map<string, string | null | undefined>();

  constructor(private readonly store: Pick<StoreClient, 'get'>) {}

  async ownerOf(sessionId: string): Promise<string | null | undefined> {
    if (this.known.has(sessionId)) return this.known.get(sessionId);
    const got = await this.store.get({ session_id: sessionId });
    const owner = got ? (typeof got.meta.metadata?.[KEYS.owner] === 'string' ? (got.meta.metadata[KEYS.owner] as string) : undefined) : null;
    this.known.set(sessionId, owner);
    if (this.known.size > REMEMBERED) this.known.delete(this.known.keys().next().value!);
    return owner;
  }

  /**
   * The items `principal` may see: with tokens (a principal), those of its own sessions and of sessions
   * nobody owns, as `/api/turns` decides; a session the store no longer has is nobody's to show.
   */
  async visibleTo<T extends { session_id: string }>(items: T[], principal: string | undefined): Promise<T[]> {
    if (principal === undefined) return items;
    const owners = await Promise.all(items.map((i) => this.ownerOf(i.session_id)));
    return items.filter((_, n) => owners[n] !== null && (owners[n] === undefined || owners[n] === principal));
  }
}
