import { DeliverPolicy, type Consumer, type ConsumerMessages, type JetStreamManager, type JsMsg, type NatsConnection } from 'nats';
import { AGENT_EVENTS_STREAM, agentEventSubject } from '../../../contracts/agent-event-stream';
import { agentEventEnvelopeSchema } from '../../../contracts/agent-events';
import { AgentEventReader, type EventSubscription, type SequencedEvent } from '../events/agent-event-reader';
import { feedSubscription, SessionFeed } from './session-feed';

/** Events pulled from JetStream at a time: the most one reader holds that its client has not taken. */
export const READ_BATCH = 64;
/** How long one pull waits for events before it is renewed. */
const PULL_EXPIRES_MS = 30_000;
/** A consumer whose reader vanished without deleting it (a crash) is removed by the server after this. */
const INACTIVE_THRESHOLD_MS = 120_000;
const RETRY_MS = [250, 500, 1_000, 2_000, 5_000];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * AgentEventReader with flow control. `consume()` of the NATS client asks the server for more as
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
 * Readers of the same session share one read (a SessionFeed) while they are at its live edge: one
 * JetStream consumer, each event parsed and checked once, however many clients watch the session. A
 * reader further back (a replay) reads on its own until it reaches the feed.
 */
export class PacedEventReader extends AgentEventReader {
  private readonly feeds = new Map<string, Promise<SessionFeed>>();
  private jsm: Promise<JetStreamManager> | undefined;

  constructor(
    private readonly conn: NatsConnection,
    private readonly reportInvalid: (seq: number, reason: string) => void = () => undefined,
  ) {
    super(conn, reportInvalid);
  }

  override async open(sessionId: string, afterSeq?: number): Promise<EventSubscription> {
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

  /** The session's live feed, started at the stream's current end when there is none. */
  private feedOf(sessionId: string): Promise<SessionFeed> {
    const existing = this.feeds.get(sessionId);
    if (existing) return existing.then((f) => (f.live ? f : (this.feeds.delete(sessionId), this.feedOf(sessionId))));
    const created = (async () => {
      const startAfter = await this.lastSeq();
      const read = await this.openOwn(sessionId, startAfter);
      const feed: SessionFeed = new SessionFeed(read, startAfter, () => {
        if (this.feeds.get(sessionId) === created) this.feeds.delete(sessionId);
      });
      return feed;
    })();
    this.feeds.set(sessionId, created);
    created.catch(() => this.feeds.get(sessionId) === created && this.feeds.delete(sessionId));
    return created;
  }

  /** A read of the session's events after `afterSeq` with a consumer of its own, paced by its caller. */
  private async openOwn(sessionId: string, afterSeq: number): Promise<EventSubscription> {
    let next = afterSeq + 1;
    const consumerFrom = (seq: number) =>
      this.conn.jetstream().consumers.get(AGENT_EVENTS_STREAM, {
        filterSubjects: agentEventSubject(sessionId),
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
    const stop = () => {
      if (stopped) return;
      stopped = true;
      batch?.stop();
      consumer.delete().catch(() => undefined);
    };
    return {
      stop,
      async *[Symbol.asyncIterator](): AsyncGenerator<SequencedEvent> {
        let failures = 0;
        try {
          while (!stopped) {
            try {
              batch ??= await pull(consumer);
              if (stopped) return;
              for await (const m of drainBatch(batch)) {
                next = m.seq + 1;
                failures = 0;
                let body: unknown;
                try {
                  body = m.json();
                } catch {
                  reportInvalid(m.seq, 'not JSON');
                  continue;
                }
                const parsed = agentEventEnvelopeSchema.safeParse(body);
                if (!parsed.success) {
                  reportInvalid(m.seq, parsed.error.issues[0]?.message ?? 'invalid envelope');
                  continue;
                }
                yield { seq: m.seq, envelope: { ...parsed.data, seq: m.seq } };
                if (stopped) return;
              }
              batch = undefined;
            } catch {
              if (stopped) return;
              // A pull that broke cannot be trusted to resume: a new consumer picks up after the last event.
              batch = undefined;
              await sleep(RETRY_MS[Math.min(failures, RETRY_MS.length - 1)]!);
              failures += 1;
              if (stopped) return;
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
