import { openSse, readUntil, type SseEvent } from './sse-client';
import { http } from './stack-fixture';

/** What a turn interrupted mid-answer left: every SSE event of it, the answer it should have, and the stored messages. */
export interface MidAnswerOutcome {
  all: SseEvent[];
  answer: string;
  stored: any[];
}

/**
 * Prompts a fresh session with `words` words for the echo model, runs `interrupt` (a worker killed,
 * stopped politely, restarted…) after the `afterDeltas`th delta, and reads the turn to its end. It
 * checks what every such fault must leave: the turn ends `done`, one `message.done`, and the store
 * holds exactly one user and one assistant message.
 */
export async function interruptMidAnswer(
  base: string,
  interrupt: (sessionId: string) => Promise<void>,
  opts: { model?: string; projectPath: string; words?: number; afterDeltas?: number },
): Promise<MidAnswerOutcome> {
  const created = await http(base, 'POST', '/api/sessions', { project_path: opts.projectPath, ...(opts.model ? { model: opts.model } : {}) });
  const sid = created.body.session_id as string;
  const text = Array.from({ length: opts.words ?? 60 }, (_, i) => `word${i}`).join(' ');
  const events = await openSse(`${base}/api/sessions/${sid}/events`);
  await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text });
  let deltas = 0;
  const before = await readUntil(events, (e) => e.event === 'message.delta' && ++deltas === (opts.afterDeltas ?? 8));
  await interrupt(sid);
  const after = await readUntil(events, (e) => e.event === 'turn.finished', 90_000);
  events.close();
  const all = [...before, ...after];
  expect(JSON.parse(after[after.length - 1]!.data)).toEqual({ type: 'turn.finished', turn_id: 't1', outcome: 'done' });
  expect(all.filter((e) => e.event === 'message.done')).toHaveLength(1);
  const messages = await http(base, 'GET', `/api/sessions/${sid}/messages`);
  expect(messages.body.messages.map((m: any) => m.entry_id)).toEqual(['t1:user', 't1:s0:assistant']);
  return { all, answer: `You said: ${text}`, stored: messages.body.messages };
}

export const eventData = (e: SseEvent) => JSON.parse(e.data);
export const deltasOf = (events: SseEvent[]) => events.filter((e) => e.event === 'message.delta').map(eventData);
