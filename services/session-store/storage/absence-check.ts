import type { StreamInfo } from 'nats';

/**
 * When the sessions stream has no message for a session that this store instance has never seen,
 * the read would answer "no such session" — and a client told so may drop a session that exists. The
 * leader's word is doubted, and the read answers `session/storage` (retryable) instead, when:
 *
 * - the leader reports a last sequence below one this instance has already seen (its reader's tail,
 *   an acknowledged write, a read): that leader is certainly behind the stream's log. This cannot
 *   catch a leader that has applied past what this instance saw but not yet the session's message.
 * - the leader was elected less than RECENT_ELECTION_MS ago (stream info's `leader_since`), and it is
 *   not the stream's first leader. nats-server since 2.11 makes a new leader apply its whole log
 *   before it answers reads, so there this only delays the "no such session" of an unknown id by a
 *   few seconds after an election; older servers (the 2.9 fallback) answered from a behind store.
 *
 * Both decisions use one stream info, fetched beside the read's last-message lookup (no added round
 * trip), and only for a session the instance has never seen: a read of a known session is untouched.
 */
export const RECENT_ELECTION_MS = 5_000;

/**
 * A leader elected within this long of the stream's creation is its first: there was no earlier
 * leader whose log it could be behind.
 */
const FIRST_LEADER_MS = 2_000;

/** Why "no message for this session" from the leader described by `info` is not to be believed; undefined when it is. */
export function whyAbsenceIsDoubtful(info: StreamInfo, seenUpTo: number, now: number): string | undefined {
  const leader = info.cluster?.leader ?? 'the server';
  if (info.state.last_seq < seenUpTo) {
    return `the sessions stream's leader (${leader}) is at #${info.state.last_seq} but this store instance has seen #${seenUpTo}: the leader is behind its log`;
  }
  // Only a replicated stream has an election whose winner could be behind.
  if ((info.cluster?.replicas?.length ?? 0) === 0) return undefined;
  const since = Date.parse((info.cluster as { leader_since?: string } | undefined)?.leader_since ?? '');
  if (Number.isNaN(since)) return undefined;
  const created = Date.parse(info.created);
  if (!Number.isNaN(created) && since - created < FIRST_LEADER_MS) return undefined;
  const age = now - since;
  if (age < RECENT_ELECTION_MS) return `the sessions stream's leader (${leader}) was elected ${Math.max(0, age)} ms ago and may not have applied its whole log`;
  return undefined;
}
