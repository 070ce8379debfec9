/**
 * The session's facts that events do not carry (its model and thinking level, its totals, the tool
 * calls waiting for a person), read the same way by both chat clients (`strand chat`,
 * clients/terminal/chat-controller.ts, and the page, clients/web/src/chat-session.ts): on opening,
 * after a reconnection, at each turn's end and after an action that changes them.
 */

/** The reads, on the client's own transport (both clients' API objects have these). */
export interface SessionFactsApi<Session, Stats, Approval> {
  session(id: string): Promise<Session>;
  stats(id: string): Promise<Stats>;
  approvals(id: string): Promise<Approval[]>;
}

/** What the refresh changes in the client's view model (clients/terminal/chat-view.ts's ChatView). */
export interface SessionFactsView<Approval> {
  /** The totals were read: usage counted from events since the last read starts again at zero. */
  statsRead(): void;
  setApprovals(approvals: Approval[]): void;
}

export interface SessionFactsOptions<Session, Stats, Approval> {
  api: SessionFactsApi<Session, Stats, Approval>;
  id: string;
  /** The view model once the facts are read (a client replaces it when it reads the conversation anew). */
  view(): SessionFactsView<Approval>;
  /** The session and its totals, read: the client keeps them (its footer shows them). */
  keep(session: Session, stats: Stats): void;
  /** Something shown may have changed. */
  changed(): void;
  /** Read alongside the facts (the page's settings); a failure here fails the refresh like the others. */
  alongside?(): Promise<unknown>;
  /**
   * Whether `id` is still the client's open session once the answers came (the terminal opens another
   * session in the same controller): the answers of one no longer open are dropped, and nothing is drawn.
   */
  current?(): boolean;
}

/**
 * Re-reads the facts events do not carry. A failure keeps what was shown (the next event or
 * reconnection reads again) and never throws: it is called from event handlers with nowhere to throw to.
 */
export async function refreshSessionFacts<Session, Stats, Approval>(options: SessionFactsOptions<Session, Stats, Approval>): Promise<void> {
  const { api, id } = options;
  try {
    const [session, stats, approvals] = await Promise.all([api.session(id), api.stats(id), api.approvals(id), options.alongside?.()]);
    if (options.current && !options.current()) return;
    options.keep(session, stats);
    const view = options.view();
    view.statsRead();
    view.setApprovals(approvals);
  } catch {
    // What is shown stays; the next event or reconnection reads again.
  }
  options.changed();
}
