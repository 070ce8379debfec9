import type { StreamInfo } from 'nats';

/**
 * When the sessions stream has no message for a session that this store instance has never seen,
 * the read would answer "no such session" — and a client told so may drop a session that exists. The
 * leader's word is doubted, and the read answers `session/storage` (retryable) instead, when:
 *
 * - the leader reports a last sequence below one this instance has already seen (its reader's tail,
 *   an acknowledged write, a read): that leader is certainly behind the stream's log. This cannot
 *   catch a leader that has applied past what this instance saw but not yet the session's message.
 * - on a server older than 2.11 only: the leader was elected less than RECENT_ELECTION_MS ago
 *   (stream info's `leader_since`), and it is not the stream's first leader. Such servers answered
 *   reads from a new leader that had not applied its whole log yet (the 2.9 fallback is one). Since
 *   2.11 a new leader applies its log before it answers, so there the rule would only turn the "no
 *   such session" of every unknown id — a gateway's `ensure` of a new client-chosen id reads first —
 *   into a 503 for seconds after each election, for nothing.
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
export function whyAbsenceIsDoubtful(info: StreamInfo, seenUpTo: number, now: number, leaderAppliesBeforeAnswering: boolean): string | undefined {
  const leader = info.cluster?.leader ?? 'the server';
  if (info.state.last_seq < seenUpTo) {
    return `the sessions stream's leader (${leader}) is at #${info.state.last_seq} but this store instance has seen #${seenUpTo}: the leader is behind its log`;
  }
  // Only a replicated stream has an election whose winner could be behind.
  if (leaderAppliesBeforeAnswering || (info.cluster?.replicas?.length ?? 0) === 0) return undefined;
  const since = Date.parse((info.cluster as { leader_since?: string } | undefined)?.leader_since ?? '');
  if (Number.isNaN(since)) return undefined;
  const created = Date.parse(info.created);
  if (!Number.isNaN(created) && since - created < FIRST_LEADER_MS) return undefined;
  const age = now - since;
  if (age < RECENT_ELECTION_MS) return `the sessions stream's leader (${leader}) was elected ${Math.max(0, age)} ms ago and may not have applied its whole log`;
  return undefined;
}

/** Whether nats-server `version` makes a new stream leader apply its whole log before it answers (2.11 and later). */
export function appliesBeforeAnswering(version: string | undefined): boolean {
  const m = /^v?(\d+)\.(\d+)/.exec(version ?? '');
  if (!m) return false;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > 2 || (major === 2 && minor >= 11);
}
