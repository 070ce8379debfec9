/**
 * Where an outbox writes: a socket, an HTTP response, a WebSocket, a process's stdout. Only what
 * every one of them can say: write, how much is still unsent, whether it is open, and how to end.
 */
export interface OutboxSink {
  write(data: string | Buffer): void;
  /** Bytes written that the client has not taken yet. */
  unsent(): number;
  open(): boolean;
  /** Ends the connection after `last` (the cut's last words, if any) has been sent. */
  end(last?: string | Buffer): void;
  /** Drops the connection at once (a cut client that did not take its last words in time). */
  destroy(): void;
}

export interface OutboxPolicy {
  /** Unsent bytes past which no further events are taken (`ready` waits) for the client. */
  maxUnsentBytes: number;
  /** How long a client over the bound has to get back to half of it before it is cut as a slow consumer. */
  slowConsumerMs: number;
  /** A write that would leave more than this unsent cuts the client at once (one write into an empty buffer always goes). */
  hardLimitBytes?: number;
  /** A frame sent this often while nothing is unsent, so proxies and clients see the connection alive. */
  keepalive?: { everyMs: number; frame: string | Buffer };
  /** How long a cut client gets to take its last words before the connection is dropped (default 1 s). */
  graceMs?: number;
}

/** Why a client was cut: it did not catch up in time (`slow`), or a write overflowed the hard limit (`overflow`). */
export type CutReason = 'slow' | 'overflow';

/** How often a waiting `ready` looks at the unsent bytes (only while the client is behind). */
const POLL_MS = 20;

/**
 * The one client outbox every transport parameterises: a bounded buffer (the sink's own, measured by
 * its unsent bytes), pacing of the event read (`ready`), the slow-consumer cut with last words and a
 * grace period, and the keepalive. The transport supplies the sink and what the cut says
 * (`lastWords`); the policy is the same code for SSE, WebSocket, EDN and any stdio protocol.
 */
export class ClientOutbox {
  private cutReason: CutReason | undefined;
  private keepalive: NodeJS.Timeout | undefined;

  constructor(
    private readonly sink: OutboxSink,
    private readonly policy: OutboxPolicy,
    private readonly lastWords: (reason: CutReason, unsent: number) => string | Buffer | undefined,
    private readonly onCut: (reason: CutReason) => void = () => undefined,
  ) {
    const k = policy.keepalive;
    if (k) {
      // A client that is behind is sent events, not keepalives.
      this.keepalive = setInterval(() => this.sink.unsent() === 0 && this.live && this.sink.write(k.frame), k.everyMs);
      this.keepalive.unref?.();
    }
  }

  /** Open and not cut. */
  get live(): boolean {
    return this.cutReason === undefined && this.sink.open();
  }

  /** Why the client was cut, if it was. */
  get cut(): CutReason | undefined {
    return this.cutReason;
  }

  /** Over the pacing bound: the producer should wait for `ready` before taking more events. */
  get full(): boolean {
    return this.sink.unsent() >= this.policy.maxUnsentBytes;
  }

  /** Writes one frame; false when the client is gone or cut (now, by this write overflowing the hard limit). */
  send(data: string | Buffer): boolean {
    if (!this.live) return false;
    const hard = this.policy.hardLimitBytes;
    const unsent = this.sink.unsent();
    if (hard !== undefined && unsent > 0 && unsent + Buffer.byteLength(data) > hard) {
      this.cutOff('overflow');
      return false;
    }
    this.sink.write(data);
    return true;
  }

  /**
   * True at once under the bound; over it, true once the client is back at half of it; false (and
   * the client cut) when that takes longer than the slow-consumer time, false when it goes away.
   */
  async ready(): Promise<boolean> {
    const { maxUnsentBytes, slowConsumerMs } = this.policy;
    if (this.sink.unsent() < maxUnsentBytes) return this.live;
    const deadline = Date.now() + slowConsumerMs;
    while (this.live) {
      if (this.sink.unsent() <= maxUnsentBytes / 2) return true;
      if (Date.now() >= deadline) {
        this.cutOff('slow');
        return false;
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    return false;
  }

  /** Stops the keepalive (the stream ended or the client left); the connection is the caller's to end. */
  close(): void {
    clearInterval(this.keepalive);
  }

  private cutOff(reason: CutReason): void {
    if (this.cutReason) return;
    const unsent = this.sink.unsent();
    this.cutReason = reason;
    this.close();
    this.onCut(reason);
    this.sink.end(this.lastWords(reason, unsent));
    setTimeout(() => this.sink.destroy(), this.policy.graceMs ?? 1_000).unref?.();
  }
}
