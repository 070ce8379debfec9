import { endsDelivery, type EventSubscription, type EventTaker, type SequencedEvent, type TakerAnswer } from './agent-event-reader';
import { pullFromPush } from './pull-from-push';

/** Recent events a feed keeps, so that a reader a little behind (or just opened) joins without a read of its own. */
const RING = 256;
/** Events a joined reader may have waiting before it leaves the feed and reads on its own. */
const MAX_QUEUED = 512;
/** A feed without readers is kept this long, so a reconnecting client finds it warm. */
const LINGER_MS = 5_000;
/**
 * How long a reader whose own read cannot be opened keeps trying, and the pauses between tries. Such
 * a read is opened while the client already has its stream (a replay, or a reader the feed dropped),
 * so a failure would cut it; on a NATS cluster that is usually a leader election (the consumer API
 * answers TIMEOUT for a few seconds, up to ~10 after a partitioned node rejoins), over well within
 * this. A read that still cannot open after it fails, and the client reconnects with Last-Event-ID.
 */
const OPEN_PATIENCE_MS = 60_000;
const OPEN_RETRY_MS = [250, 500, 1_000, 2_000, 5_000];

/** Opens a paced read of one session's events after `afterSeq` (a JetStream consumer of its own). */
export type OpenRead = (afterSeq: number) => Promise<EventSubscription>;

/** One reader joined to a feed: the feed pushes, the reader takes at its own pace. */
interface Member {
  /** The reader has every event up to this one: the feed hands it only later ones. */
  after: number;
  queue: SequencedEvent[];
  /** Set when the reader fell MAX_QUEUED behind, or the feed ended: it goes on with a read of its own. */
  dropped: boolean;
  wake: (() => void) | undefined;
  /**
   * Set while the reader has nothing queued and can take an event at once: the feed then hands the
   * event over in the same tick it arrives instead of queueing it. The reader unsets it to be queued
   * for again (it has to wait before the next event).
   */
  sink: ((event: SequencedEvent) => void) | undefined;
}

/**
 * All live readers of one session share one read. The feed is handed every event of the session
 * after `floor` as it comes (parsed and checked once, by `push`), keeps the last RING of them, and
 * pushes each to every joined reader. A reader joins at a cursor at or after `floor` and gets the
 * ring's events after its cursor, then live ones; a reader that falls MAX_QUEUED events behind is
 * dropped and continues with a read of its own from where it was (so one slow client never holds the
 * others back or makes the feed buffer without bound).
 */
export class SessionFeed {
  /** Every event of the session with a sequence above this is in the ring or still to come. */
  floor: number;
  /** The last event pushed (or the start): pushes at or below it are repeats and are ignored. */
  private last: number;
  private readonly ring: SequencedEvent[] = [];
  private readonly members = new Set<Member>();
  private holders = 0;
  private ended = false;
  private lingering: NodeJS.Timeout | undefined;

  /** `onClose` runs once when the feed closes (after the last holder left and the linger ran out, or on `close`). */
  constructor(
    startAfter: number,
    private readonly onClose: () => void,
  ) {
    this.floor = startAfter;
    this.last = startAfter;
  }

  get live(): boolean {
    return !this.ended;
  }

  /** A subscription of the session counts as a holder from open to stop, whether joined or reading on its own. */
  hold(): () => void {
    this.holders += 1;
    clearTimeout(this.lingering);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holders -= 1;
      if (this.holders === 0) this.lingering = setTimeout(() => this.holders === 0 && this.close(), LINGER_MS).unref();
    };
  }

  /** Joins a reader that has every event up to `cursor` (which must be at least `floor`). */
  join(cursor: number): Member | undefined {
    if (this.ended || cursor < this.floor) return undefined;
    const member: Member = { after: cursor, queue: this.ring.filter((e) => e.seq > cursor), dropped: false, wake: undefined, sink: undefined };
    this.members.add(member);
    return member;
  }

  leave(member: Member): void {
    this.members.delete(member);
  }

  close(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.lingering);
    for (const m of this.members) this.drop(m);
    this.onClose();
  }

  /** The session's next event, in stream order: into the ring and to every joined reader that lacks it. */
  push(event: SequencedEvent): void {
    if (this.ended || event.seq <= this.last) return;
    this.last = event.seq;
    this.ring.push(event);
    if (this.ring.length > RING) this.floor = this.ring.shift()!.seq;
    for (const m of this.members) {
      // A reader may have joined with a cursor past what the feed had (its cursor came from elsewhere).
      if (event.seq <= m.after) continue;
      if (m.sink && m.queue.length === 0) m.sink(event);
      else if (m.queue.length >= MAX_QUEUED) this.drop(m);
      else {
        m.queue.push(event);
        m.wake?.();
      }
    }
  }

  private drop(m: Member): void {
    this.members.delete(m);
    m.dropped = true;
    m.queue = [];
    m.wake?.();
  }
}

/**
 * A subscription served by a feed when it can be, by a read of its own when it must: it starts joined
 * when its cursor is within the feed's reach, otherwise reads on its own (a replay) until it reaches
 * the feed, and goes back to reading on its own from where it is if the feed drops it or ends.
 * Events come in order, without gap or repeat, across those switches.
 *
 * It pushes (`deliver`): while joined and caught up, the feed calls the taker in the tick the event
 * arrives, so a session's hundred readers get an event in one pass, with no promise or generator step
 * per reader. A taker that returns a promise is queued for until it settles; one that answers false
 * (at once or through its promise) ends the delivery and stops the subscription. Iterating it pulls
 * through the same delivery (pull-from-push.ts).
 */
export function feedSubscription(feed: SessionFeed, afterSeq: number, joinable: boolean, openRead: OpenRead): EventSubscription {
  const release = feed.hold();
  let stopped = false;
  let own: EventSubscription | undefined;
  let member: Member | undefined;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    own?.stop();
    if (member) {
      feed.leave(member);
      member.wake?.();
    }
    release();
  };

  /** While joined: the queued events, then pushed ones, until the feed drops the reader, it stops, or the taker ends it. Returns the last sequence taken. */
  async function takeJoined(m: Member, take: EventTaker, from: number): Promise<number> {
    let last = from;
    while (!stopped && !m.dropped) {
      const next = m.queue.shift();
      if (next) {
        last = next.seq;
        if (await endsDelivery(take(next))) stop();
        continue;
      }
      // Caught up: the feed hands events straight over until one needs waiting for.
      const held: { answer?: TakerAnswer; failure?: { err: unknown } } = {};
      await new Promise<void>((resolve) => {
        m.wake = resolve;
        m.sink = (event) => {
          last = event.seq;
          try {
            const answer = take(event);
            if (answer === undefined || answer === true) return; // taken: the next may come at once
            held.answer = answer;
          } catch (err) {
            held.failure = { err };
          }
          m.sink = undefined;
          resolve();
        };
      });
      m.sink = undefined;
      m.wake = undefined;
      if (held.failure) throw held.failure.err;
      if (held.answer !== undefined && (await endsDelivery(held.answer))) stop();
    }
    return last;
  }

  /** `openRead(after)`, tried again after a failure for OPEN_PATIENCE_MS; undefined once stopped meanwhile. */
  async function openPatiently(after: number): Promise<EventSubscription | undefined> {
    const giveUpAt = Date.now() + OPEN_PATIENCE_MS;
    for (let failures = 0; ; failures++) {
      try {
        return await openRead(after);
      } catch (err) {
        if (Date.now() >= giveUpAt) throw err;
      }
      await new Promise((r) => setTimeout(r, OPEN_RETRY_MS[Math.min(failures, OPEN_RETRY_MS.length - 1)]));
      if (stopped) return undefined;
    }
  }

  async function deliver(take: EventTaker): Promise<void> {
    let last = afterSeq;
    let tryJoin = joinable;
    try {
      while (!stopped) {
        member = tryJoin ? feed.join(last) : undefined;
        if (member) {
          last = await takeJoined(member, take, last);
          feed.leave(member);
          member = undefined;
          if (stopped) return;
        }
        // On its own: from just after the last event it has, until it reaches the feed's reach.
        own = await openPatiently(last);
        if (!own) return;
        if (stopped) return own.stop();
        for await (const event of own) {
          last = event.seq;
          if (await endsDelivery(take(event))) stop();
          if (stopped || (feed.live && last >= feed.floor)) break;
        }
        own.stop();
        own = undefined;
        tryJoin = true;
      }
    } finally {
      stop();
    }
  }

  return {
    stop,
    deliver,
    [Symbol.asyncIterator]: () => pullFromPush(deliver, stop),
  };
}
