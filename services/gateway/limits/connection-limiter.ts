/**
 * Counts the open connections of one transport against its maximum. `tryAcquire` hands out a
 * release function that counts only once, however many of a connection's end paths (abort, error,
 * normal end) call it, so the count cannot drift with aborts.
 */
export class ConnectionLimiter {
  private open = 0;

  constructor(readonly max: number) {}

  /** A release function for a new connection, or undefined when the transport is full. */
  tryAcquire(): (() => void) | undefined {
    if (this.open >= this.max) return undefined;
    this.open += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open -= 1;
    };
  }

  /** Connections currently counted. */
  get active(): number {
    return this.open;
  }
}
