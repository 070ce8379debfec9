/**
 * The per-connection chat queue of the WebSocket RPC protocol: one chat runs per connection, at most
 * `max` wait behind it, in arrival order, with 1-based positions. A transport rule only: the session
 * has its own queue of turns, which this one never stands in for.
 */
export class RpcQueue<T extends { id: string }> {
  private readonly items: T[] = [];

  constructor(readonly max: number) {}

  get length(): number {
    return this.items.length;
  }

  /** Adds a chat at the end; its position, or undefined when the queue is full. */
  push(item: T): number | undefined {
    if (this.items.length >= this.max) return undefined;
    this.items.push(item);
    return this.items.length;
  }

  has(id: string): boolean {
    return this.items.some((i) => i.id === id);
  }

  /** Takes a waiting chat out (an abort); the removed item, or undefined when it was not waiting. */
  remove(id: string): T | undefined {
    const i = this.items.findIndex((item) => item.id === id);
    return i < 0 ? undefined : this.items.splice(i, 1)[0];
  }

  /** The next chat to run. */
  shift(): T | undefined {
    return this.items.shift();
  }

  /** Empties the queue (the connection closed), returning what was waiting. */
  drain(): T[] {
    return this.items.splice(0);
  }

  /** Every waiting chat with its current position, first to last. */
  positions(): Array<{ item: T; position: number }> {
    return this.items.map((item, i) => ({ item, position: i + 1 }));
  }
}
