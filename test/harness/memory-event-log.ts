import type { EventSubscription, SequencedEvent } from '../../services/gateway/events/agent-event-reader';

/**
 * A session's event log in memory, for unit tests of the gateway's readers: `publish(n)` appends n
 * deltas (with gaps in their sequences, as other sessions' events take numbers in the same stream),
 * `read(after)` is a live read of it like a JetStream consumer's, `reads()` counts the reads opened.
 */
export function memoryEventLog() {
  const events: SequencedEvent[] = [];
  const listeners = new Set<() => void>();
  let reads = 0;
  const publish = (count: number) => {
    for (let i = 0; i < count; i++) {
      // Sequences with gaps, as other sessions' events take numbers in the same stream.
      const seq = (events.at(-1)?.seq ?? 0) + 1 + (events.length % 3);
      events.push({ seq, envelope: { v: 1, session_id: 's', ts: 0, event: { type: 'assistant.delta', turn_id: 't', step: 0, text: `e${seq}` } } });
    }
    for (const l of listeners) l();
  };
  const read = async (after: number): Promise<EventSubscription> => {
    reads += 1;
    let stopped = false;
    let wake: (() => void) | undefined;
    const listener = () => wake?.();
    listeners.add(listener);
    return {
      stop: () => {
        stopped = true;
        listeners.delete(listener);
        wake?.();
      },
      async *[Symbol.asyncIterator]() {
        let last = after;
        while (!stopped) {
          const next = events.find((e) => e.seq > last);
          if (!next) {
            await new Promise<void>((resolve) => (wake = resolve));
            continue;
          }
          last = next.seq;
          yield next;
        }
      },
    };
  };
  return { events, publish, read, reads: () => reads };
}
