/**
 * Counts the open connections of one transport against its maximum. `tryAcquire` hands out a
 * release function that counts only once, however many of a connection's end paths (abort, error,
 * normal end) call it, so the count cannot drift with aborts. Connections are also counted by the
 * kind their caller names (SSE event streams and chat streams share one limit), for the metrics.
 */
export class ConnectionLimiter {
  private open = 0;
  private readonly byKind = new Map<string, number>();

  constructor(readonly max: number) {}

  /** A release function for a new connection, or undefined when the transport is full. */
  tryAcquire(kind = 'default'): (() => void) | undefined {
    if (this.open >= this.max) return undefined;
    this.open += 1;
    this.byKind.set(kind, (this.byKind.get(kind) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open -= 1;
      this.byKind.set(kind, this.byKind.get(kind)! - 1);
    };
  }

  /** Connections currently counted. */
  get active(): number {
    return this.open;
  }

  /** Connections currently counted of one kind. */
  activeOf(kind: string): number {
    return this.byKind.get(kind) ?? 0;
  }
}
