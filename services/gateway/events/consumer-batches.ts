import { ConsumerEvents, type Consumer, type ConsumerMessages, type JsMsg } from 'nats';
import { withDeadline } from '../../common/deadline';

/** Events pulled from JetStream at a time: the most one reader holds that its client has not taken. */
const READ_BATCH = 64;
/** How long one pull waits for events before it is renewed. */
const PULL_EXPIRES_MS = 30_000;
/**
 * While a pull waits, the consumer's node sends a heartbeat this often; two missed mean the node
 * (which alone keeps the one-replica consumer) is gone or cut off, and the read moves to a new
 * consumer. nats.js's default for a 30 s pull is 15 s, so a dead node went unnoticed until the pull
 * expired (30 s). The cost: one small message per interval per waiting pull — a gateway has one for
 * the live read of every session, plus one per client catching up.
 */
const PULL_HEARTBEAT_MS = 2_000;
/**
 * How long opening a pull may take. Opening an ordered consumer's first pull creates the consumer,
 * and nats.js retries a failed creation after 30 s; while the cluster elects a leader the read is
 * better off trying again (with a new consumer) soon.
 */
const OPEN_PULL_MS = 5_000;

/** Opens one bounded pull of up to READ_BATCH messages on `consumer`, or rejects after OPEN_PULL_MS. */
export function openBatch(consumer: Consumer): Promise<ConsumerMessages> {
  return withDeadline(
    consumer.fetch({ max_messages: READ_BATCH, expires: PULL_EXPIRES_MS, idle_heartbeat: PULL_HEARTBEAT_MS }),
    OPEN_PULL_MS,
    'the events stream did not open a pull',
    (late) => late.stop(),
  );
}

/**
 * One paced read's request to move to a new consumer: made when its pull misses heartbeats (the
 * consumer's node died or went silent) or when the connection moved to another node (the consumer may
 * be gone with the old one). The pull under way is stopped at once; the read finds the request when it
 * ends and starts a new consumer after the last event it read, so nothing is skipped or repeated.
 */
export class ConsumerRenewal {
  private reason: string | undefined;
  private current: ConsumerMessages | undefined;

  /** Asks for a new consumer (the first reason is kept until taken). */
  request(why: string): void {
    this.reason ??= why;
    this.current?.stop();
  }

  /** Watches `batch`'s heartbeats; a request already made stops it at once. */
  watch(batch: ConsumerMessages): void {
    this.current = batch;
    if (this.reason !== undefined) {
      batch.stop();
      return;
    }
    void (async () => {
      for await (const s of await batch.status()) {
        if (s.type === ConsumerEvents.HeartbeatsMissed) this.request(`the pull missed ${String(s.data)} heartbeats`);
      }
    })().catch(() => undefined);
  }

  /** The pending request's reason, cleared; undefined when none was made. */
  take(): string | undefined {
    const why = this.reason;
    this.reason = undefined;
    return why;
  }
}

/**
 * The messages of one fetch, moved into a local queue the moment they arrive (the loop below never
 * waits between two of them, so it always finishes what the iterator has queued before the iterator
 * can be ended), then handed out at the reader's pace. Holds at most one batch.
 */
export async function* drainBatch(batch: ConsumerMessages): AsyncGenerator<JsMsg> {
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
