/**
 * Which approval requests a client is asked about. A stream read from a cursor or from a running
 * turn's start may replay an `approval.requested` that was answered since, so each is checked with
 * the session (`stillPending`) before the client is asked. One the session does not list yet may
 * still be live (a turn reports its approvals just after announcing them): it is parked until the
 * session's next waiting-for-approval state, which the session publishes only once it lists them.
 * Judged by stream order, not by clocks. Protocol-neutral: the item is whatever the caller shows.
 */
export class ApprovalGate<T> {
  private readonly parked = new Map<string, T>();

  constructor(private readonly stillPending: (toolCallId: string) => Promise<boolean>) {}

  /** An `approval.requested` read: true to ask the client now; false parks it (see `waiting`). */
  async requested(toolCallId: string, item: T): Promise<boolean> {
    // When the session cannot be asked, asking the client is the safer mistake: an answer to a
    // call that no longer waits is refused by the session and changes nothing.
    if (await this.stillPending(toolCallId).catch(() => true)) return true;
    this.parked.set(toolCallId, item);
    return false;
  }

  /**
   * The session says it waits for approvals; `open` are the calls the stream still holds open
   * (TurnStream.pendingApprovals). Returns the parked ones to ask about now; the rest are dropped.
   */
  async waiting(open: Iterable<string>): Promise<T[]> {
    const still = new Set(open);
    const ask: T[] = [];
    for (const [callId, item] of [...this.parked]) {
      this.parked.delete(callId);
      if (still.has(callId) && (await this.stillPending(callId).catch(() => true))) ask.push(item);
    }
    return ask;
  }
}
