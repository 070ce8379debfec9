import { openSse, readUntil } from '../../test/harness/sse-client';
import { timedCall, type Sample } from './load-client';

/** What one phase of the load did: every answer, and the chatting clients' turns. */
export interface PhaseResult {
  samples: Sample[];
  turns: { accepted: number; finished: number; done: number; outcomes: Record<string, number> };
  /** Turns accepted whose `turn.finished` did not come within TURN_WAIT_MS: the session's view then. */
  unfinished: Array<{ session_id: string; turn_id: string; view: unknown }>;
}

/** Longer than any turn of this load takes, kill and restart included. */
const TURN_WAIT_MS = 120_000;

export interface Workload {
  base: string;
  sessions: string[];
  readers: number;
  chatters: number;
  renameEveryMs: number;
  durationMs: number;
  /** Called once, half-way through (the worker kill). */
  midway?: () => Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;
const PROMPT = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');

/**
 * The issue's load: `readers` clients each reading a session then a page of 50 in a loop, one renamer
 * (PATCH settings every `renameEveryMs`), `chatters` clients each sending its next prompt the moment its
 * last turn finished (on its own session, watched over SSE). Runs `durationMs`; then the chatters' last
 * turns are waited for (a turn accepted must finish, whatever else happened).
 */
export async function runWorkload(w: Workload): Promise<PhaseResult> {
  const samples: Sample[] = [];
  const turns = { accepted: 0, finished: 0, done: 0, outcomes: {} as Record<string, number> };
  const unfinished: PhaseResult['unfinished'] = [];
  const endAt = Date.now() + w.durationMs;
  const running = () => Date.now() < endAt;

  const reader = async () => {
    while (running()) {
      await timedCall(samples, 'get', w.base, 'GET', `/api/sessions/${pick(w.sessions)}`);
      await timedCall(samples, 'list', w.base, 'GET', '/api/sessions?limit=50');
    }
  };
  const renamer = async () => {
    for (let i = 0; running(); i++) {
      const started = Date.now();
      await timedCall(samples, 'patch', w.base, 'PATCH', `/api/sessions/${pick(w.sessions)}/settings`, { name: `load ${i}` });
      await sleep(Math.max(0, w.renameEveryMs - (Date.now() - started)));
    }
  };
  const chatter = async (sid: string) => {
    const sse = await openSse(`${w.base}/api/sessions/${sid}/events`);
    try {
      while (running()) {
        const sent = await timedCall(samples, 'prompt', w.base, 'POST', `/api/sessions/${sid}/prompt`, { text: PROMPT });
        if (sent.status !== 202) {
          await sleep(200);
          continue;
        }
        turns.accepted++;
        const turn = sent.body.turn_id as string;
        let seen;
        try {
          seen = await readUntil(sse, (e) => e.event === 'turn.finished' && JSON.parse(e.data).turn_id === turn, TURN_WAIT_MS);
        } catch {
          // Recorded, and this client stops: what it saw is the finding.
          unfinished.push({ session_id: sid, turn_id: turn, view: await (await fetch(`${w.base}/api/sessions/${sid}`)).json().catch(() => null) });
          return;
        }
        const outcome = JSON.parse(seen[seen.length - 1]!.data).outcome as string;
        turns.finished++;
        turns.outcomes[outcome] = (turns.outcomes[outcome] ?? 0) + 1;
        if (outcome === 'done') turns.done++;
      }
    } finally {
      sse.close();
    }
  };
  const midway = (async () => {
    if (!w.midway) return;
    await sleep(w.durationMs / 2);
    await w.midway();
  })();

  const chatting = w.sessions.slice(0, w.chatters);
  await Promise.all([...Array.from({ length: w.readers }, reader), renamer(), ...chatting.map(chatter), midway]);
  return { samples, turns, unfinished };
}
