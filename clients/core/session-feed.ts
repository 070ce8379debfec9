import type { HttpEventData } from '../../contracts/http-events';
import type { FollowState } from './event-follower';

/** What a client's follower is told (clients/core/event-follower.ts, wrapped with the client's address and token). */
export interface FeedHandlers {
  onEvent(seq: number, data: HttpEventData): void;
  onState(state: FollowState): void;
  onFatal(status: number, message: string): void;
}

export interface SessionFeedOptions {
  /** Starts following the session's events (the client's follower); called once. */
  follow(handlers: FeedHandlers): { close(): void };
  /** Reads the stored conversation into the client's view; `first` is the opening read, otherwise the view was moved (a revert). */
  readStored(first: boolean): Promise<void>;
  /**
   * One event, in order, each once, and never before the stored conversation it follows was read;
   * `waited`: it arrived during a read and is applied right after it.
   */
  apply(data: HttpEventData, waited: boolean): void;
  /** After each read and the events that waited for it: re-read what events do not carry (model, totals, approvals). */
  settled(first: boolean): Promise<void> | void;
  /** The stream is live again after a drop: what events do not carry may have changed meanwhile. */
  reconnected(): void;
  onState?(state: FollowState): void;
  onFatal?(status: number, message: string): void;
}

/**
 * The order in which a client opens a session, the same for the terminal chat and the page: the event
 * stream is followed first and its events wait; once the stream is live the stored conversation is
 * read (a turn still running is left to its replayed events), then the waiting events are applied.
 * So a turn that ran while no client was open shows, and nothing shows twice. A later read (the
 * conversation was moved by a revert or redo, here or in another client) makes events wait again the
 * same way; asked for while one runs, it makes one more read after it, so the last move is read.
 */
export class SessionFeed {
  private readonly stream: { close(): void };
  /** Events waiting for a read of the stored conversation; undefined while they are applied as they come. */
  private waiting: HttpEventData[] | undefined = [];
  private opened = false;
  private reading: Promise<void> | undefined;
  private readAgain = false;
  private closed = false;

  constructor(private readonly options: SessionFeedOptions) {
    this.stream = options.follow({
      onEvent: (_seq, data) => this.receive(data),
      onState: (state) => {
        if (this.closed) return;
        options.onState?.(state);
        if (state.kind !== 'live') return;
        if (this.opened) return options.reconnected();
        this.opened = true;
        void this.read(true);
      },
      onFatal: (status, message) => !this.closed && options.onFatal?.(status, message),
    });
  }

  /** Reads the stored conversation anew (events arriving meanwhile wait and follow it); resolves once read. */
  reread(): Promise<void> {
    return this.read(false);
  }

  close(): void {
    this.closed = true;
    this.stream.close();
  }

  private receive(data: HttpEventData): void {
    if (this.closed) return;
    if (this.waiting) return void this.waiting.push(data);
    this.options.apply(data, false);
  }

  private read(first: boolean): Promise<void> {
    if (this.reading) {
      this.readAgain = true;
      return this.reading;
    }
    this.reading = (async () => {
      let opening = first;
      try {
        do {
          this.readAgain = false;
          this.waiting ??= [];
          // readStored shows its own failure (a notice); the events that waited are applied anyway.
          await this.options.readStored(opening).catch(() => undefined);
          if (this.closed) return;
          const waited = this.waiting ?? [];
          this.waiting = undefined;
          // An event applied here may ask for another read (a revert's conversation.moved): readAgain.
          for (const data of waited) this.options.apply(data, true);
          await Promise.resolve(this.options.settled(opening)).catch(() => undefined);
          opening = false;
        } while (this.readAgain && !this.closed);
      } finally {
        this.reading = undefined;
      }
    })();
    return this.reading;
  }
}
