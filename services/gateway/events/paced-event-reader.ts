import { DeliverPolicy, Events, type ConsumerMessages, type NatsConnection } from 'nats';
import { AGENT_EVENTS_STREAM, AGENT_EVENTS_SUBJECTS, agentEventSubject } from '../../../contracts/agent-event-stream';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import { madeOnceItWorks } from '../../../contracts/until-it-works';
import type { AgentEventReader, EventSubscription, SequencedEvent } from './agent-event-reader';
import { failFast } from '../../common/fail-fast-consumer';
import { ConsumerRenewal, drainBatch, openBatch } from './consumer-batches';
import { eventFromMessage, type InvalidEventReport } from './event-message';
import { feedSubscription, SessionFeed } from './session-feed';

/** JetStream API calls (stream info, consumer creation) fail after this rather than wait on a dead node. */
const API_TIMEOUT_MS = 3_000;
/** A consumer whose reader vanished without deleting it (a crash) is removed by the server after this. */
const INACTIVE_THRESHOLD_MS = 120_000;
const RETRY_MS = [250, 500, 1_000, 2_000, 5_000];
/**
 * How long `open` tries again while NATS cannot answer (a stream electing its leader, a node cut off)
 * before it reports the read unavailable: within a client's patience for the answer's headers.
 */
const OPEN_PATIENCE_MS = 10_000;

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
 * On a NATS cluster each consumer is one replica, kept by one node. When that node dies or goes
 * silent, the read moves to a new consumer (on a live node) as soon as its pull misses two
 * heartbeats (consumer-batches.ts) or the connection reconnects, rather than when the pull expires.
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
  private closed = false;
  /** The renewal handle of every open paced read (the connection's watcher asks them all). */
  private readonly renewals = new Set<ConsumerRenewal>();
  private watchingConnection = false;

  constructor(
    private readonly conn: NatsConnection,
    private readonly reportInvalid: InvalidEventReport = () => undefined,
    /** Told each time a read moves to a new consumer after a failure, with the sequence it resumes after and why. */
    private readonly reportRenewal: (afterSeq: number, why: string) => void = () => undefined,
  ) {}

  /**
   * Tried again for OPEN_PATIENCE_MS while NATS cannot answer; then UNAVAILABLE (retryable: an
   * infrastructure fault, never reported as the client's or as an internal error). A stream that does
   * not exist fails at once.
   */
  async open(sessionId: string, afterSeq?: number): Promise<EventSubscription> {
    const giveUpAt = Date.now() + OPEN_PATIENCE_MS;
    for (let failures = 0; ; failures++) {
      try {
        return await this.openOnce(sessionId, afterSeq);
      } catch (err) {
        const message = (err as Error).message;
        if (/stream not found/i.test(message)) throw err;
        if (this.closed || Date.now() >= giveUpAt) {
          throw new StrandError(ErrorCode.UNAVAILABLE, `the session's events cannot be read right now (NATS: ${message}); retry`);
        }
      }
      await sleep(Math.min(RETRY_MS[Math.min(failures, RETRY_MS.length - 1)]!, Math.max(0, giveUpAt - Date.now())));
    }
  }

  private async openOnce(sessionId: string, afterSeq?: number): Promise<EventSubscription> {
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

  /** The manager, asked for once; one that could not be made (NATS did not answer) is asked for again next time. */
  private readonly manager = madeOnceItWorks(() => this.conn.jetstreamManager({ timeout: API_TIMEOUT_MS }));

  private async lastSeq(): Promise<number> {
    return (await (await this.manager()).streams.info(AGENT_EVENTS_STREAM)).state.last_seq;
  }

  /** The sequence of the session's last event so far, 0 when it has none. */
  private async lastSeqOf(sessionId: string): Promise<number> {
    try {
      return (await (await this.manager()).streams.getMessage(AGENT_EVENTS_STREAM, { last_by_subj: agentEventSubject(sessionId) })).seq;
    } catch (err) {
      // Only the stream's own "none": a lookup that failed (NATS did not answer) is not "no events",
      // which would let the read skip to the live feed past events it must replay.
      if (/no message found/i.test((err as Error).message)) return 0;
      throw err;
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
    this.watchConnection();
    let next = afterSeq + 1;
    const consumerFrom = async (seq: number) =>
      failFast(
        await this.conn.jetstream({ timeout: API_TIMEOUT_MS }).consumers.get(AGENT_EVENTS_STREAM, {
          filterSubjects: filter,
          deliver_policy: DeliverPolicy.StartSequence,
          opt_start_seq: seq,
          inactive_threshold: INACTIVE_THRESHOLD_MS,
        }),
      );
    let consumer = await consumerFrom(next);
    // The first pull is made here so that a missing stream fails `open`, as it did before.
    let batch: ConsumerMessages | undefined = await openBatch(consumer);
    let stopped = false;
    const renewal = new ConsumerRenewal();
    this.renewals.add(renewal);
    const reportInvalid = this.reportInvalid;
    const reportRenewal = this.reportRenewal;
    const isClosed = () => this.closed;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      this.renewals.delete(renewal);
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
              batch ??= await openBatch(consumer);
              if (stopped) return;
              renewal.watch(batch);
              for await (const m of drainBatch(batch)) {
                next = m.seq + 1;
                failures = 0;
                if (!wanted(m.subject)) continue;
                const event = eventFromMessage(m, reportInvalid);
                if (event) yield { subject: m.subject, event };
                if (stopped) return;
              }
              batch = undefined;
              const why = renewal.take();
              if (why !== undefined) throw new Error(why);
            } catch (err) {
              if (stopped || isClosed()) return;
              // A pull that broke, or whose consumer's node went silent, cannot be trusted to resume:
              // a new consumer picks up after the last event read.
              batch = undefined;
              renewal.take();
              reportRenewal(next - 1, (err as Error | undefined)?.message ?? String(err));
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

  /**
   * Once per reader: when the connection comes back (to another node of a cluster, or the same
   * server restarted), every paced read moves to a new consumer. Its consumer lived on one node and
   * may be gone with it; nats.js would check it once and, failing, stop watching its heartbeats.
   */
  private watchConnection(): void {
    if (this.watchingConnection) return;
    this.watchingConnection = true;
    void (async () => {
      for await (const s of this.conn.status()) {
        if (this.closed) break;
        if (s.type === Events.Reconnect) for (const r of this.renewals) r.request(`reconnected to ${String(s.data)}`);
      }
    })().catch(() => undefined);
  }
}

/** A paced read's events with their subjects, and the last sequence it has read. */
interface Dispatch extends AsyncIterable<{ subject: string; event: SequencedEvent }> {
  stop(): void;
  position(): number;
}
