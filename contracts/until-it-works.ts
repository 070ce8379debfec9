/**
 * A lazily made resource (a JetStream manager, a KV bucket) that is made once, but made again by the
 * next caller when the attempt failed. `x ??= make()` keeps a rejected promise for good: one NATS
 * blip at the first use (a node cut off, a stream electing its leader) then fails every later call
 * of a long-lived process.
 */
export function madeOnceItWorks<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    if (!made) {
      const attempt = make();
      made = attempt;
      attempt.catch(() => {
        if (made === attempt) made = undefined;
      });
    }
    return made;
  };
}
