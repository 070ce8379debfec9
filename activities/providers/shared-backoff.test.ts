import { DEFAULT_BACKOFF_POLICY, admission, backoffKey, backoffMs, entryAfterHit, keyFingerprint, recoveryEnd, type BackoffEntry } from './shared-backoff';

const KEY = 'openai.aHR0cDovL2xvY2FsaG9zdA.0123456789abcdef';
const T = 1_700_000_000_000;

describe('the key of a provider key', () => {
  test('names provider, base URL and a fingerprint, never the key; only characters KV keys allow', () => {
    const secret = 'sk-live-SECRET-do-not-leak-4242';
    const key = backoffKey({ provider: 'openai', baseURL: 'http://127.0.0.1:8080/v1/', apiKey: secret });
    expect(key).toMatch(/^[-/_=.a-zA-Z0-9]+$/);
    expect(key).not.toContain(secret);
    expect(key).not.toContain('SECRET');
    expect(key.split('.')).toEqual(['openai', Buffer.from('http://127.0.0.1:8080/v1').toString('base64url'), keyFingerprint(secret)]);
    expect(keyFingerprint(secret)).toMatch(/^[0-9a-f]{16}$/);
    // Same key and URL (a trailing slash aside): the same entry; any part different: another.
    expect(backoffKey({ provider: 'openai', baseURL: 'http://127.0.0.1:8080/v1', apiKey: secret })).toBe(key);
    expect(backoffKey({ provider: 'openai', baseURL: 'http://127.0.0.1:8081/v1', apiKey: secret })).not.toBe(key);
    expect(backoffKey({ provider: 'openai', baseURL: 'http://127.0.0.1:8080/v1', apiKey: `${secret}x` })).not.toBe(key);
    expect(backoffKey({ provider: 'anthropic', apiKey: secret })).toBe(`anthropic.default.${keyFingerprint(secret)}`);
  });
});

describe('windows', () => {
  test("the provider's retry-after sets the end; without one, an exponential window jittered by the key, capped", () => {
    expect(entryAfterHit(undefined, { kind: 'rate_limited', status: 429, retryAfterMs: 30_000, sentAt: T - 10 }, KEY, T)).toEqual({ until: T + 30_000, opened_at: T, hits: 1, kind: 'rate_limited', status: 429 });
    const waits = [1, 2, 3, 4, 5, 6, 7, 12].map((h) => backoffMs(h, KEY));
    for (const [i, w] of waits.entries()) {
      const raw = Math.min(DEFAULT_BACKOFF_POLICY.capMs, DEFAULT_BACKOFF_POLICY.baseMs * 2 ** ([1, 2, 3, 4, 5, 6, 7, 12][i]! - 1));
      expect(w).toBeGreaterThanOrEqual(raw * 0.8);
      expect(w).toBeLessThanOrEqual(raw);
    }
    // The same for every writer of the key; another key comes back at another time.
    expect(backoffMs(3, KEY)).toBe(backoffMs(3, KEY));
    expect(new Set(['a', 'b', 'c', 'd'].map((k) => backoffMs(3, k))).size).toBeGreaterThan(1);
  });

  test('refusals of one burst extend the window at most, never shorten it, and do not escalate', () => {
    const first = entryAfterHit(undefined, { kind: 'rate_limited', retryAfterMs: 20_000, sentAt: T - 50 }, KEY, T)!;
    // Sent before the window opened, refused a moment later with a shorter wait: nothing to write.
    expect(entryAfterHit(first, { kind: 'rate_limited', retryAfterMs: 5_000, sentAt: T - 40 }, KEY, T + 100)).toBeUndefined();
    // The same burst asking for longer: the end moves later, still one hit.
    expect(entryAfterHit(first, { kind: 'rate_limited', retryAfterMs: 25_000, sentAt: T - 30 }, KEY, T + 100)).toMatchObject({ until: T + 25_100, hits: 1, opened_at: T });
  });

  test('a request refused after a window (a probe) is a new hit: a longer window', () => {
    const first = entryAfterHit(undefined, { kind: 'overloaded', status: 529, sentAt: T - 5 }, KEY, T)!;
    const probeAt = first.until + 10;
    const second = entryAfterHit(first, { kind: 'overloaded', status: 529, sentAt: probeAt }, KEY, probeAt + 20)!;
    expect(second.hits).toBe(2);
    expect(second.until - (probeAt + 20)).toBe(backoffMs(2, KEY));
    // Long after recovery: a new episode starts at one hit.
    const later = recoveryEnd(second) + 1;
    expect(entryAfterHit(second, { kind: 'overloaded', sentAt: later }, KEY, later)!.hits).toBe(1);
  });
});

describe('admission', () => {
  const entry: BackoffEntry = { until: T + 10_000, opened_at: T, hits: 1, kind: 'rate_limited', status: 429 };

  test('nothing goes while the window is open; nothing holds a request once the entry is stale', () => {
    expect(admission(undefined, T)).toEqual({ action: 'go' });
    expect(admission(entry, T + 5_000)).toEqual({ action: 'wait', until: T + 10_000, entry });
    expect(admission(entry, recoveryEnd(entry))).toEqual({ action: 'go' });
  });

  test('while recovering, requests take slots one pace apart, in order', () => {
    let e = entry;
    const slots: number[] = [];
    for (let i = 0; i < 4; i++) {
      const a = admission(e, T + 10_000);
      if (a.action !== 'reserve') throw new Error(`expected a slot, got ${a.action}`);
      slots.push(a.slot - (T + 10_000));
      e = a.next;
    }
    expect(slots).toEqual([0, 500, 1_000, 1_500]);
    // A slot long past is not owed to anyone: a late request takes "now".
    const late = admission(e, T + 14_000);
    expect(late).toMatchObject({ action: 'reserve', slot: T + 14_000 });
  });

  test('a new window voids the slots handed out before it', () => {
    const reserved = { ...entry, admit_at: T + 13_000 };
    const reopened = entryAfterHit(reserved, { kind: 'rate_limited', retryAfterMs: 30_000, sentAt: T + 10_500 }, KEY, T + 10_600)!;
    expect(reopened.admit_at).toBeUndefined();
    expect(admission(reopened, T + 40_600)).toMatchObject({ action: 'reserve', slot: T + 40_600 });
  });
});
