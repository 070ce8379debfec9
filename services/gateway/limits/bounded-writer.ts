/** Where a BoundedWriter's text goes; the promise settles when the transport has taken the chunk. */
export interface ChunkSink {
  write(text: string): Promise<unknown>;
}

/**
 * Sends text to a stream without waiting for each chunk, counting the bytes the stream has not taken
 * yet (`buffered`). The caller paces itself with `room`: at or over `limit` it stops producing until
 * the client has brought the count down to half the limit, and a client that does not do so in time
 * is a slow consumer. What one client costs is then at most the limit plus one chunk, and a client
 * that reads slower than events come only falls behind (the events wait in JetStream), while one
 * that has stopped reading is found out.
 */
export class BoundedWriter {
  private pending = 0;
  private waiters: Array<{ below: number; wake: () => void }> = [];

  constructor(
    private readonly sink: ChunkSink,
    readonly limit: number,
  ) {}

  /** Queues `text` without waiting for the client. */
  write(text: string): void {
    const bytes = Buffer.byteLength(text);
    this.pending += bytes;
    const taken = () => {
      this.pending -= bytes;
      this.wakeWaiters();
    };
    this.sink.write(text).then(taken, taken);
  }

  /** Bytes written that the stream has not taken yet. */
  get buffered(): number {
    return this.pending;
  }

  /**
   * True at once while under the limit; at or over it, true once the client has taken enough to be
   * at half the limit, false if that does not happen within `ms` (a slow consumer).
   */
  room(ms: number): Promise<boolean> {
    return this.pending < this.limit ? Promise.resolve(true) : this.until(this.limit / 2, ms);
  }

  /** True once the stream has taken everything written, false if that takes longer than `ms`. */
  drained(ms: number): Promise<boolean> {
    return this.until(0, ms);
  }

  private until(below: number, ms: number): Promise<boolean> {
    if (this.pending <= below) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = {
        below,
        wake: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, ms);
      this.waiters.push(waiter);
    });
  }

  private wakeWaiters(): void {
    if (this.waiters.length === 0) return;
    const ready = this.waiters.filter((w) => this.pending <= w.below);
    if (ready.length === 0) return;
    this.waiters = this.waiters.filter((w) => this.pending > w.below);
    for (const w of ready) w.wake();
  }
}
