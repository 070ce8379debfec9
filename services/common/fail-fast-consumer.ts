import type { Consumer } from 'nats';

/**
 * An ordered consumer that fails at once when the server refuses to create it, instead of retrying
 * in the background. nats.js (2.x) retries a failed creation up to 30 times, 30 s apart, with nothing
 * able to stop it: a caller that gave up on it (a deadline passed, the read moved to another consumer,
 * the connection was closed) left that loop running — it kept a closed connection's process alive for
 * 15 minutes, and on a live one could create a consumer nobody reads. strand's readers retry on their
 * own, from the last sequence they read. `maxInitialReset` is nats.js's bound on those retries; it is
 * not in its typings, so it is set only where it exists.
 */
export function failFast<C extends Consumer>(consumer: C): C {
  const impl = consumer as unknown as { maxInitialReset?: number };
  if (typeof impl.maxInitialReset === 'number') impl.maxInitialReset = 0;
  return consumer;
}
