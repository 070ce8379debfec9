import type { EventTaker, SequencedEvent } from '../events/agent-event-reader';

/**
 * The pull side of a push delivery: an async iterator over what `deliver` hands out, for code that
 * reads a subscription with `for await`. Delivery starts at the first `next()`; each event is handed
 * to the `next()` waiting for it, and delivery waits until the following `next()` before it goes on,
 * so the iterator holds at most one event and the reader paces the read as before. `return()` (a
 * `break` out of the loop) stops the subscription; a delivery that fails rejects the pending `next()`.
 */
export function pullFromPush(deliver: (take: EventTaker) => Promise<void>, stop: () => void): AsyncIterator<SequencedEvent> {
  type Waiter = { resolve: (r: IteratorResult<SequencedEvent>) => void; reject: (err: unknown) => void };
  const DONE: IteratorResult<SequencedEvent> = { done: true, value: undefined };
  let waiter: Waiter | undefined;
  let resume: (() => void) | undefined;
  let started = false;
  let finished = false;
  let failed: { err: unknown } | undefined;

  const take: EventTaker = (event) => {
    // Returned or broken out of: a delivery still running is told to end.
    if (finished) return false;
    return new Promise<void>((r) => {
      resume = r;
      const w = waiter;
      waiter = undefined;
      w?.resolve({ done: false, value: event });
    });
  };

  const end = () => {
    finished = true;
    resume?.();
    resume = undefined;
  };

  return {
    next() {
      return new Promise<IteratorResult<SequencedEvent>>((resolve, reject) => {
        if (failed) {
          const { err } = failed;
          failed = undefined;
          return reject(err);
        }
        if (finished) return resolve(DONE);
        waiter = { resolve, reject };
        if (!started) {
          started = true;
          deliver(take).then(
            () => {
              end();
              waiter?.resolve(DONE);
              waiter = undefined;
            },
            (err: unknown) => {
              end();
              if (waiter) waiter.reject(err);
              else failed = { err };
              waiter = undefined;
            },
          );
          return;
        }
        const r = resume;
        resume = undefined;
        r?.();
      });
    },
    return() {
      stop();
      end();
      waiter?.resolve(DONE);
      waiter = undefined;
      return Promise.resolve(DONE);
    },
  };
}
