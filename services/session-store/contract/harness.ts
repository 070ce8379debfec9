import { SessionStore } from '../domain/store';
import type { StoragePort } from '../storage/port';

/** Deterministic ids (`id1`, `id2`, …) and a clock the scenario moves by hand. */
export function scriptedIdsAndClock(start = 1_000) {
  let n = 0;
  let t = start;
  return {
    newId: () => `id${++n}`,
    now: () => t,
    tick: (ms = 1) => {
      t += ms;
    },
    set: (ms: number) => {
      t = ms;
    },
  };
}

interface RecordedEvent {
  type: string;
  session_id: string;
  payload: Record<string, unknown>;
}

/** A store over any storage adapter, recording its events, with a way to "restart" it. */
export interface StoreHarness {
  store: SessionStore;
  events: RecordedEvent[];
  clock: ReturnType<typeof scriptedIdsAndClock>;
  /** A fresh store over the same storage, as after a process restart. */
  restart(): Promise<SessionStore>;
  /** Damages the last line of a session's log, as a crash in the middle of a write would. */
  tearLastRecord?(sessionId: string): Promise<void>;
  cleanup(): Promise<void>;
}

export async function makeHarness(storage: () => StoragePort, extras: Partial<StoreHarness> = {}): Promise<StoreHarness> {
  const clock = scriptedIdsAndClock();
  const events: RecordedEvent[] = [];
  const limits = { default_list_limit: 50, max_list_limit: 500 };
  const emit = (type: string, session_id: string, payload: Record<string, unknown>) => events.push({ type, session_id, payload });
  const build = async () => {
    const s = new SessionStore(storage(), emit, limits, clock);
    await s.load();
    return s;
  };
  const store = await build();
  return { store, events, clock, restart: build, cleanup: async () => undefined, ...extras };
}
