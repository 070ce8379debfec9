import { once } from 'node:events';
import type { Writable } from 'node:stream';

/**
 * Paces a producer by what a Node stream (an SSE response) has not sent yet: `writableLength`, the
 * bytes written that are still waiting for the socket. The producer writes without waiting for each
 * chunk and asks `room` before producing more: under `limit` it goes on at once; at or over it, it
 * waits until the stream has drained (Node's `drain` comes when the buffer is empty), and a client
 * that does not let it drain within the given time is a slow consumer. What one client can cost is
 * then the limit plus one chunk, and a client that reads slower than events come only falls behind.
 */
export class WritablePacer {
  constructor(
    private readonly out: Writable,
    readonly limit: number,
  ) {}

  /** Bytes written and not yet handed to the socket. */
  get buffered(): number {
    return this.out.writableLength;
  }

  /** False once the stream is closed or destroyed (the client went away). */
  get open(): boolean {
    return !this.out.destroyed && !this.out.writableEnded;
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
  async drained(ms: number): Promise<boolean> {
    if (!this.open) return false;
    if (this.buffered === 0) return true;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), ms);
    try {
      const event = await Promise.race([once(this.out, 'drain', { signal: abort.signal }).then(() => 'drain'), once(this.out, 'close', { signal: abort.signal }).then(() => 'close')]);
      return event === 'drain' && this.open;
    } catch {
      return false; // timed out
    } finally {
      clearTimeout(timer);
      abort.abort();
    }
  }
}
