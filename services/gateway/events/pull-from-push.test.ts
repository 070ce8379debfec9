import type { EventTaker, SequencedEvent } from '../events/agent-event-reader';
import { pullFromPush } from './pull-from-push';

const event = (seq: number): SequencedEvent => ({ seq, envelope: { v: 1, session_id: 's', ts: 0, event: { type: 'assistant.delta', turn_id: 't', step: 0, text: `e${seq}` } } });

/** A delivery of `count` events that notes how far it got before each hand-over returned. */
function counting(count: number, fail?: Error) {
  const handedOver: number[] = [];
  const deliver = async (take: EventTaker) => {
    for (let seq = 1; seq <= count; seq++) {
      if ((await take(event(seq))) === false) return;
      handedOver.push(seq);
    }
    if (fail) throw fail;
  };
  return { deliver, handedOver };
}

test('each event waits for the next call: the iterator holds one event at most', async () => {
  const { deliver, handedOver } = counting(3);
  const it = pullFromPush(deliver, () => undefined);
  expect((await it.next()).value?.seq).toBe(1);
  await new Promise((r) => setTimeout(r, 5));
  expect(handedOver).toEqual([]); // the first hand-over has not returned: nobody asked for the second
  expect((await it.next()).value?.seq).toBe(2);
  expect((await it.next()).value?.seq).toBe(3);
  expect(await it.next()).toEqual({ done: true, value: undefined });
  expect(await it.next()).toEqual({ done: true, value: undefined });
  expect(handedOver).toEqual([1, 2, 3]);
});

test('a failed delivery rejects the call waiting for the next event', async () => {
  const { deliver } = counting(1, new Error('read broke'));
  const it = pullFromPush(deliver, () => undefined);
  expect((await it.next()).value?.seq).toBe(1);
  await expect(it.next()).rejects.toThrow('read broke');
  expect(await it.next()).toEqual({ done: true, value: undefined });
});

test('breaking out of a for-await stops the subscription and lets the delivery finish', async () => {
  let stopped = 0;
  const { deliver, handedOver } = counting(100);
  const seen: number[] = [];
  for await (const e of { [Symbol.asyncIterator]: () => pullFromPush(deliver, () => stopped++) }) {
    seen.push(e.seq);
    if (seen.length === 2) break;
  }
  expect(seen).toEqual([1, 2]);
  expect(stopped).toBe(1);
  await new Promise((r) => setTimeout(r, 5));
  expect(handedOver).toEqual([1, 2]); // the third hand-over was told to end
});
