import type { StreamInfo } from 'nats';
import { RECENT_ELECTION_MS, appliesBeforeAnswering, whyAbsenceIsDoubtful as doubt } from './absence-check';

/** On a server older than 2.11 (every rule applies). */
const whyAbsenceIsDoubtful = (info: StreamInfo, seenUpTo: number, now: number) => doubt(info, seenUpTo, now, false);

const created = '2026-11-29T10:00:00.000Z';
const createdMs = Date.parse(created);

/** The parts of a stream info the check reads. */
function info(lastSeq: number, cluster?: { leaderSinceMs?: number; followers?: number }): StreamInfo {
  return {
    created,
    state: { last_seq: lastSeq },
    ...(cluster
      ? {
          cluster: {
            leader: 'n2',
            replicas: Array.from({ length: cluster.followers ?? 2 }, (_, k) => ({ name: `f${k}`, current: true, active: 0 })),
            ...(cluster.leaderSinceMs !== undefined ? { leader_since: new Date(cluster.leaderSinceMs).toISOString() } : {}),
          },
        }
      : {}),
  } as unknown as StreamInfo;
}

const hourLater = createdMs + 3_600_000;

test('a leader whose last sequence is below one this instance saw is behind: doubted', () => {
  expect(whyAbsenceIsDoubtful(info(41), 42, hourLater)).toMatch(/at #41 but this store instance has seen #42/);
  expect(whyAbsenceIsDoubtful(info(41, { leaderSinceMs: createdMs + 1_000 }), 42, hourLater)).toMatch(/behind its log/);
});

test('a leader at or past what this instance saw, elected long ago: believed', () => {
  expect(whyAbsenceIsDoubtful(info(42, { leaderSinceMs: createdMs + 60_000 }), 42, hourLater)).toBeUndefined();
  expect(whyAbsenceIsDoubtful(info(50), 42, hourLater)).toBeUndefined();
});

test('a leader elected moments ago (not the stream\'s first) is doubted, until RECENT_ELECTION_MS has passed', () => {
  const electedAt = createdMs + 600_000;
  expect(whyAbsenceIsDoubtful(info(42, { leaderSinceMs: electedAt }), 10, electedAt + 100)).toMatch(/elected 100 ms ago/);
  expect(whyAbsenceIsDoubtful(info(42, { leaderSinceMs: electedAt }), 10, electedAt + RECENT_ELECTION_MS - 1)).toMatch(/elected/);
  expect(whyAbsenceIsDoubtful(info(42, { leaderSinceMs: electedAt }), 10, electedAt + RECENT_ELECTION_MS)).toBeUndefined();
});

test('the stream\'s first leader, a stream without followers, or no leader_since: no election to doubt', () => {
  expect(whyAbsenceIsDoubtful(info(0, { leaderSinceMs: createdMs + 300 }), 0, createdMs + 400)).toBeUndefined();
  expect(whyAbsenceIsDoubtful(info(5, { leaderSinceMs: hourLater, followers: 0 }), 5, hourLater + 10)).toBeUndefined();
  expect(whyAbsenceIsDoubtful(info(5, {}), 5, hourLater)).toBeUndefined();
});

test('on nats-server 2.11 and later a recent election is no doubt (its new leader applies its log first); a leader behind still is', () => {
  const electedAt = createdMs + 600_000;
  expect(doubt(info(42, { leaderSinceMs: electedAt }), 10, electedAt + 100, true)).toBeUndefined();
  expect(doubt(info(41, { leaderSinceMs: electedAt }), 42, electedAt + 100, true)).toMatch(/behind its log/);
  expect(['2.14.5', 'v2.11.0', '3.0.0'].map(appliesBeforeAnswering)).toEqual([true, true, true]);
  expect(['2.10.22', '2.9.25', '', undefined].map(appliesBeforeAnswering)).toEqual([false, false, false, false]);
});
