/**
 * Hands a connection's inbound messages on in arrival order, at most `perTurn` of them in one turn of
 * the event loop. The rest wait, and the connection stops reading, until the loop has turned. Without
 * this, a client that sends thousands of messages at once holds the gateway's one thread for as long
 * as they take: libuv reads up to 2 MB from a WebSocket in one go and `ws` emits every frame in it
 * synchronously; one 64 KiB read of an EDN TCP socket holds thousands of short lines. Meanwhile every
 * other client waits, and an HTTP request whose headers were read before the flood may be answered
 * 408, because its body was not read in time. (fuzz-http-ws.test saw both, in CI.) Messages are never
 * dropped or reordered. Hand-written because the pacing needs the socket's own pause and resume, which
 * no queueing library has.
 */
export class MessagePacer<T> {
  private readonly backlog: T[] = [];
  /** Messages handled in the current turn of the loop. */
  private handledThisTurn = 0;
  private turnScheduled = false;
  private paused = false;

  constructor(
    private readonly handle: (message: T) => void,
    private readonly flow: { pause(): void; resume(): void },
    private readonly perTurn = 64,
  ) {}

  /** A message as it arrived: handled now, or after those waiting before it. */
  push(message: T): void {
    this.nextTurnResets();
    if (this.backlog.length === 0 && this.handledThisTurn < this.perTurn) {
      this.handledThisTurn++;
      this.handle(message);
      return;
    }
    this.backlog.push(message);
    if (!this.paused) {
      this.paused = true;
      this.flow.pause();
    }
  }

  /** Handles whatever still waits, now, in order: the connection ended, and what it sent still counts. */
  flush(): void {
    while (this.backlog.length > 0) this.handle(this.backlog.shift()!);
  }

  private nextTurnResets(): void {
    if (this.turnScheduled) return;
    this.turnScheduled = true;
    setImmediate(() => this.turn());
  }

  private turn(): void {
    this.turnScheduled = false;
    this.handledThisTurn = 0;
    while (this.backlog.length > 0 && this.handledThisTurn < this.perTurn) {
      this.handledThisTurn++;
      this.handle(this.backlog.shift()!);
    }
    if (this.backlog.length > 0 || this.handledThisTurn > 0) this.nextTurnResets();
    if (this.backlog.length === 0 && this.paused) {
      this.paused = false;
      this.flow.resume();
    }
  }
}
