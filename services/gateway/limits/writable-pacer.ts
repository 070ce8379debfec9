import type { Writable } from 'node:stream';

/** How often a producer waiting for a drain looks at the unsent bytes itself. */
const DRAIN_POLL_MS = 25;

/**
 * Paces a producer by what a Node stream (an SSE response) has not sent yet: `writableLength`, the
 * bytes written that are still waiting for the socket. The producer writes without waiting for each
 * chunk and asks `room` before producing more: under `limit` it goes on at once; at or over it, it
 * waits until the stream has drained (Node's `drain` comes when the buffer is empty), and a client
 * that does not let it drain within the given time is a slow consumer. What one client can cost is
 * then the limit plus one chunk, and a client that reads slower than events come only falls behind.
 */
export class WritablePacer {
  /**
   * `drains` is the stream whose 'drain' says the bytes are out: `out` itself, or the socket under it
   * when its owner also writes to the socket directly (an SSE response's pre-framed chunks), which
   * the response's own 'drain' does not report.
   */
  constructor(
    private readonly out: Writable,
    readonly limit: number,
    private readonly drains: Writable = out,
  ) {}

  /** Bytes written and not yet handed to the socket. */
  get buffered(): number {
    return this.out.writableLength;
  }

  /** False once the stream is closed or destroyed (the client went away). */
  get open(): boolean {
    return !this.out.destroyed && !this.out.writableEnded;
  }

  /** At or over the limit: the producer should wait for `room` before producing more. */
  get full(): boolean {
    return this.buffered >= this.limit;
  }

  write(text: string | Buffer): void {
    if (this.open) this.out.write(text);
  }

  /** True at once under the limit; over it, true once drained, false after `ms` or when the stream closes. */
  room(ms: number): Promise<boolean> {
    if (!this.open) return Promise.resolve(false);
    return this.buffered < this.limit ? Promise.resolve(true) : this.drained(ms);
  }

  /** True once everything written has been handed to the socket; false after `ms` or when the stream closes. */
  drained(ms: number): Promise<boolean> {
    if (!this.open) return Promise.resolve(false);
    if (this.buffered === 0) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const finish = (drained: boolean) => {
        clearTimeout(deadline);
        clearInterval(poll);
        this.drains.off('drain', onDrain);
        this.out.off('close', onClose);
        resolve(drained);
      };
      const onDrain = () => finish(this.open);
      const onClose = () => finish(false);
      const deadline = setTimeout(() => finish(false), ms);
      // 'drain' only follows a write that found the buffer over its high-water mark; under it the
      // buffer empties without one, so it is also looked at now and then.
      const poll = setInterval(() => this.buffered === 0 && finish(this.open), DRAIN_POLL_MS);
      this.drains.on('drain', onDrain);
      this.out.once('close', onClose);
    });
  }
}
