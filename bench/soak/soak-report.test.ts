import type { TrackedProcess } from './rss';
import { SoakMetrics } from './soak-metrics';
import { errorKinds, rssGrowth } from './soak-report';
import type { TurnResult } from './turn-result';

const proc = (label: string, ours: boolean): TrackedProcess => ({ label, pid: 1, ours, command: '' });

describe('rssGrowth', () => {
  test('judges our processes against the bound, reports the others unjudged, and a vanished process fails', () => {
    const samples = [
      { at: 0, mb: { worker: 300, gateway: 150, nats: 20, store: 80 } },
      { at: 10, mb: { worker: 380, gateway: 160, nats: 400, store: 90 } },
      { at: 20, mb: { worker: 420, gateway: 155, nats: 500, store: null } },
    ];
    const rows = rssGrowth([proc('worker', true), proc('gateway', true), proc('nats', false), proc('store', true)], samples, 100);
    expect(rows.map((r) => [r.process, r.growth_mb, r.within_bound])).toEqual([
      ['worker', 120, false],
      ['gateway', 5, true],
      ['nats', 480, null],
      ['store', null, false],
    ]);
    expect(rows[0]).toMatchObject({ start_mb: 300, end_mb: 420, max_mb: 420, growth_pct: 40, second_half_growth_mb: 40 });
  });
});

describe('SoakMetrics', () => {
  const turn = (over: Partial<TurnResult>): TurnResult => ({ protocol: 'sse', sessionId: 's1', promptAt: 0, firstDeltaAt: 0, endAt: 0, outcome: 'done', ...over });

  test('counts warm-up turns apart, measures only inside the window, and keeps every error', () => {
    const m = new SoakMetrics();
    m.turn(turn({ promptAt: 100, firstDeltaAt: 150, endAt: 900 }));
    m.turn(turn({ promptAt: 100, endAt: 900, outcome: 'error', error: 'error event: boom', firstDeltaAt: undefined }));
    m.startedAt = 1_000;
    m.turn(turn({ protocol: 'ws', promptAt: 1_200, firstDeltaAt: 1_500, endAt: 3_000 }));
    m.turn(turn({ protocol: 'edn', promptAt: 1_300, firstDeltaAt: undefined, endAt: 3_100 }));
    m.endedAt = 5_000;
    m.turn(turn({ protocol: 'ws', promptAt: 4_000, firstDeltaAt: 4_100, endAt: 6_000 }));
    expect(m.warmupTurns).toBe(2);
    expect(m.turnsBy).toEqual({ sse: 0, ws: 1, edn: 0 });
    expect(m.firstDeltaBy.ws).toEqual([300, 100]);
    expect(m.turnsBetween(0, 3)).toBe(1);
    expect(m.errors.map((e) => [e.protocol, e.message])).toEqual([
      ['sse', 'turn error: error event: boom'],
      ['edn', 'a turn finished without any delta at the client'],
    ]);
  });
});

describe('errorKinds', () => {
  test('groups errors whose messages differ only in ids and numbers, most frequent first', () => {
    const e = (at: number, message: string, protocol: 'sse' | 'ws' | 'edn' = 'ws') => ({ at, protocol, session: 's', message });
    const kinds = errorKinds([
      e(1, 'turn timeout: no chat.done within 120 s'),
      e(2, 'turn error: chat.error turn-failed: step 3 failed {"code":1}'),
      e(3, 'turn timeout: no chat.done within 120 s'),
      e(4, 'turn timeout: no chat.done within 120 s', 'edn'),
    ]);
    expect(kinds).toEqual([
      { kind: 'ws: turn timeout: no chat.done within # s', count: 2, first: 1, last: 3 },
      { kind: 'ws: turn error: chat.error turn-failed: step # failed {…}', count: 1, first: 2, last: 2 },
      { kind: 'edn: turn timeout: no chat.done within # s', count: 1, first: 4, last: 4 },
    ]);
  });
});
