import { beginTurn } from '../../activities/store/session-activities';
import { composeSessionState } from '../../contracts/session-state-compose';
import { memoryStorePort, recordingPublisher } from '../harness/memory-store-port';

/**
 * A turn whose session left announcing it to the turn (`announces_start`) has its first model step
 * publish the turn's first `session.state` right before `turn.started`, in one publish that the
 * step's first delta waits for; a retried step publishes neither again (same ids).
 */
test('beginTurn publishes the turn\'s first state before turn.started when given one, once across retries', async () => {
  const { port, store } = await memoryStorePort();
  const { session_id } = await store.create({ metadata: {} });
  const events = recordingPublisher();
  const state = composeSessionState({ model: 'scripted/echo', thinking_level: 'off', queue_length: 0 }, { phase: 'thinking', turn_id: 't3', streaming: true, retry_attempt: 0, details: undefined });
  const input = { session_id, turn_id: 't3', text: 'go', last_turn: 3, requests: [], state };
  for (let attempt = 0; attempt < 2; attempt++) {
    const begun = beginTurn(port, events, input);
    await Promise.all([begun.recorded, begun.counted]);
  }
  expect(events.events.map((e) => [e.id, e.event.type, e.turn_id])).toEqual([
    ['t3:running', 'session.state', 't3'],
    ['t3:started', 'turn.started', 't3'],
  ]);
  expect(events.events[0]!.event).toMatchObject({ phase: 'thinking', turn_id: 't3', streaming: true });
});

test('without a state (the session announced the turn), beginTurn publishes turn.started alone', async () => {
  const { port, store } = await memoryStorePort();
  const { session_id } = await store.create({ metadata: {} });
  const events = recordingPublisher();
  const begun = beginTurn(port, events, { session_id, turn_id: 't1', text: 'go', last_turn: 1, requests: [] });
  await Promise.all([begun.recorded, begun.counted]);
  expect(events.events.map((e) => e.event.type)).toEqual(['turn.started']);
});
