import { DeliverPolicy, type Consumer, type ConsumerMessages, type JetStreamManager, type JsMsg, type NatsConnection } from 'nats';
import { AGENT_EVENTS_STREAM, AGENT_EVENTS_SUBJECTS, agentEventSubject } from '../../../contracts/agent-event-stream';
import type { AgentEventReader, EventSubscription, SequencedEvent } from './agent-event-reader';
import { eventFromMessage, type InvalidEventReport } from './event-message';
import { feedSubscription, SessionFeed } from './session-feed';

/** Events pulled from JetStream at a time: the most one reader holds that its client has not taken. */
const READ_BATCH = 64;
/** How long one pull waits for events before it is renewed. */
const PULL_EXPIRES_MS = 30_000;
/** A consumer whose reader vanished without deleting it (a crash) is removed by the server after this. */
const INACTIVE_THRESHOLD_MS = 120_000;
const RETRY_MS = [250, 500, 1_000, 2_000, 5_000];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The gateway's AgentEventReader, with flow control. `consume()` of the NATS client asks the server for more as
 * soon as messages *arrive*, not when they are read, so a reader whose client has stopped taking
 * events would queue the whole stream in the gateway. This reader pulls one batch of READ_BATCH
 * events and asks for the next only when its caller has iterated through it: what a stalled client
 * costs the gateway is one batch, and the rest waits in JetStream. Live events still arrive as they
 * are published (a pull request stays open until its batch is full or it expires). `stop` deletes the
 * server-side consumer at once; a broken pull (NATS restarted, consumer gone) is resumed with a new
 * consumer after the last event read, so the stream has no gap.
 *
 * Each batch is taken off the client's iterator as it arrives (`drainBatch`): the ordered consumer
 * ends a fetch's iterator when the batch's last message arrives, and its iterator drops messages it
 * has queued but not yet handed out at that moment, which a slow reader would lose.
 *
 * Live events of every session come through one read of the whole stream (the dispatch), which
 * hands each event to its session's feed, if the session has one, and skips the others unparsed.
 * Readers of a session share its feed while they are at its live edge: each event parsed and checked
 * once, however many clients watch the session, and no JetStream consumer per session or per idle
 * client. A reader further back (a replay) reads on its own until it reaches the feed.
 */
export class PacedEventReader implements AgentEventReader {
  /** Live feeds by their session's subject. */
  private readonly feeds = new Map<string, SessionFeed>();
  private dispatch: Promise<Dispatch> | undefined;
  private jsm: Promise<JetStreamManager> | undefined;
  private closed = false;

  constructor(
    private readonly conn: NatsConnection,
    private readonly reportInvalid: InvalidEventReport = () => undefined,
  ) {}

  async open(sessionId: string, afterSeq?: number): Promise<EventSubscription> {
    const cursor = afterSeq ?? (await this.lastSeq());
    const feed = await this.feedOf(sessionId);
    let start = cursor;
    let joinable = cursor >= feed.floor;
    // Nothing of this session between the cursor and the feed's reach: join at the feed's floor.
    if (!joinable && (await this.lastSeqOf(sessionId)) <= cursor) {
      start = Math.max(cursor, feed.floor);
      joinable = true;
    }
    return feedSubscription(feed, start, joinable, (after) => this.openOwn(sessionId, after));
  }

  /** Events stored but not yet read by the live read (the gateway's consumer lag, for metrics); undefined before it started. */
  async liveLag(): Promise<number | undefined> {
    const dispatch = await this.dispatch?.catch(() => undefined);
    return dispatch ? Math.max(0, (await this.lastSeq()) - dispatch.position()) : undefined;
  }

  /** Sessions the live read feeds (for metrics). */
  get liveSessions(): number {
    return this.feeds.size;
  }

  /** Stops the dispatch and every feed (their readers go on with reads of their own until stopped). */
  close(): void {
    this.closed = true;
    void this.dispatch?.then((d) => d.stop());
    for (const feed of this.feeds.values()) feed.close();
  }

  private async lastSeq(): Promise<number> {
    this.jsm ??= this.conn.jetstreamManager();
    return (await (await this.jsm).streams.info(AGENT_EVENTS_STREAM)).state.last_seq;
  }

  /** The sequence of the session's last event so far, 0 when it has none. */
  private async lastSeqOf(sessionId: string): Promise<number> {
    this.jsm ??= this.conn.jetstreamManager();
    try {
      return (await (await this.jsm).streams.getMessage(AGENT_EVENTS_STREAM, { last_by_subj: agentEventSubject(sessionId) })).seq;
    } catch {
      return 0;
    }
  }

  /**
   * The session's live feed, new when it has none: it starts where the dispatch is, which hands it
   * every later event of the session (a new feed and the dispatch's position change in one step).
   */
  private async feedOf(sessionId: string): Promise<SessionFeed> {
    const dispatch = await this.startDispatch();
    const subject = agentEventSubject(sessionId);
    const existing = this.feeds.get(subject);
    if (existing?.live) return existing;
    const feed: SessionFeed = new SessionFeed(dispatch.position(), () => {
      if (this.feeds.get(subject) === feed) this.feeds.delete(subject);
    });
    this.feeds.set(subject, feed);
    return feed;
  }

  /**
   * The one read of every session's live events, from the stream's end when it starts. One that
   * cannot start is tried afresh by the next open. Should it ever end other than by `close`, every
   * feed is closed (their readers go on with reads of their own, without gap) and the next open
   * starts a new one, so no reader waits on a read that is gone.
   */
  private startDispatch(): Promise<Dispatch> {
    if (this.dispatch) return this.dispatch;
    const starting: Promise<Dispatch> = (async () => {
      const read = await this.pacedRead(AGENT_EVENTS_SUBJECTS, await this.lastSeq(), (subject) => this.feeds.has(subject));
      void (async () => {
        try {
          for await (const { subject, event } of read) this.feeds.get(subject)?.push(event);
        } catch {
          // A broken pull is resumed inside the read: this is a failure of something else.
        }
        if (this.closed) return;
        this.dispatch = undefined; // it was this one: no other starts while one is set
        for (const feed of [...this.feeds.values()]) feed.close();
      })();
      return read;
    })();
    starting.catch(() => this.dispatch === starting && (this.dispatch = undefined));
    this.dispatch = starting;
    return starting;
  }

  /** A read of the session's events after `afterSeq` with a consumer of its own, paced by its caller. */
  private async openOwn(sessionId: string, afterSeq: number): Promise<EventSubscription> {
    const read = await this.pacedRead(agentEventSubject(sessionId), afterSeq, () => true);
    return {
      stop: () => read.stop(),
      async *[Symbol.asyncIterator]() {
        for await (const { event } of read) yield event;
      },
    };
  }

  /**
   * A paced read of the stream after `afterSeq`, filtered to `filter`: the events of the subjects
   * `wanted` says yes to (asked as each message comes, the others skipped unparsed), with their
   * subjects. `position()` is the last sequence read, wanted or not.
   */
  private async pacedRead(filter: string, afterSeq: number, wanted: (subject: string) => boolean): Promise<Dispatch> {
    let next = afterSeq + 1;
    const consumerFrom = (seq: number) =>
      this.conn.jetstream().consumers.get(AGENT_EVENTS_STREAM, {
        filterSubjects: filter,
        deliver_policy: DeliverPolicy.StartSequence,
        opt_start_seq: seq,
        inactive_threshold: INACTIVE_THRESHOLD_MS,
      });
    const pull = (c: Consumer) => c.fetch({ max_messages: READ_BATCH, expires: PULL_EXPIRES_MS });
    let consumer = await consumerFrom(next);
    // The first pull is made here so that a missing stream fails `open`, as it did before.
    let batch: ConsumerMessages | undefined = await pull(consumer);
    let stopped = false;
    const reportInvalid = this.reportInvalid;
    const isClosed = () => this.closed;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      batch?.stop();
      consumer.delete().catch(() => undefined);
    };
    return {
      stop,
      position: () => next - 1,
      async *[Symbol.asyncIterator](): AsyncGenerator<{ subject: string; event: SequencedEvent }> {
        let failures = 0;
        try {
          while (!stopped) {
            try {
              batch ??= await pull(consumer);
              if (stopped) return;
              for await (const m of drainBatch(batch)) {
                next = m.seq + 1;
                failures = 0;
                if (!wanted(m.subject)) continue;
                const event = eventFromMessage(m, reportInvalid);
                if (event) yield { subject: m.subject, event };
                if (stopped) return;
              }
              batch = undefined;
            } catch {
              if (stopped || isClosed()) return;
              // A pull that broke cannot be trusted to resume: a new consumer picks up after the last event.
              batch = undefined;
              await sleep(RETRY_MS[Math.min(failures, RETRY_MS.length - 1)]!);
              failures += 1;
              if (stopped || isClosed()) return;
              const old = consumer;
              consumer = await consumerFrom(next).catch(() => old);
              if (consumer !== old) old.delete().catch(() => undefined);
            }
          }
        } finally {
          stop();
        }
      },
    };
  }
}

/** A paced read's events with their subjects, and the last sequence it has read. */
interface Dispatch extends AsyncIterable<{ subject: string; event: SequencedEvent }> {
  stop(): void;
  position(): number;
}

/**
 * The messages of one fetch, moved into a local queue the moment they arrive (the loop below never
 * waits between two of them, so it always finishes what the iterator has queued before the iterator
 * can be ended), then handed out at the reader's pace. Holds at most one batch.
 */
async function* drainBatch(batch: ConsumerMessages): AsyncGenerator<JsMsg> {
  const queue: JsMsg[] = [];
  let ended = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const drained = (async () => {
    try {
      for await (const m of batch) {
        queue.push(m);
        wake?.();
      }
    } catch (err) {
      failure = err ?? new Error('the pull failed');
    } finally {
      ended = true;
      wake?.();
    }
  })();
  try {
    for (;;) {
      const m = queue.shift();
      if (m) {
        yield m;
        continue;
      }
      if (ended) break;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
    await drained;
    if (failure !== undefined) throw failure;
  } finally {
    batch.stop();
  }
}
