import type { GatewayClient, ListedSession } from './gateway-client';

/** Which session a chat opens: a named one, a new one, or the project's latest (none yet: a new one). */
export type SessionWish = { kind: 'id'; id: string } | { kind: 'new' } | { kind: 'latest' };

/** Resolves a wish to a session id of the project at `cwd`; `created` says a new one was made. */
export async function openSession(client: GatewayClient, cwd: string, wish: SessionWish): Promise<{ id: string; created: boolean }> {
  if (wish.kind === 'id') return { id: (await client.session(wish.id)).session_id, created: false };
  if (wish.kind === 'latest') {
    const [latest] = await client.projectSessions(cwd);
    if (latest) return { id: latest.session_id, created: false };
  }
  return { id: (await client.createSession(cwd)).session_id, created: true };
}

/** A session as a picker line: its title, size, age and whether a turn runs in it. */
export function sessionLabel(s: ListedSession, now = Date.now()): string {
  const minutes = Math.max(0, Math.round((now - s.updated_at) / 60_000));
  const age = minutes < 60 ? `${minutes} min ago` : minutes < 48 * 60 ? `${Math.round(minutes / 60)} h ago` : `${Math.round(minutes / 1440)} days ago`;
  return `${s.name || s.title} · ${s.message_count} messages · ${age} · ${s.model}${s.active_turn ? ' · running' : ''}${s.status === 'unknown' ? ' · state unknown' : ''} (${s.session_id})`;
}
