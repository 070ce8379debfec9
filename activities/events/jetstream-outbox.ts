import { headers as natsHeaders, type JetStreamClient, type NatsConnection, type PubAck } from 'nats';
import { EVENT_TYPE_HEADER, agentEventSubject } from '../../contracts/agent-event-stream';
import type { AgentEventEnvelope } from '../../contracts/agent-events';
import type { AgentEventPublisher, OutgoingEvent, PublishedSeqs } from './publisher';
import { isConnectionLoss, isNotReady } from './nats-faults';

/**
 * Publishes agent events so that a NATS outage loses none and reorders none.
 *
 * Why not `js.publish` on the service's ordinary (reconnect-forever) connection: when nats-server dies,
 * the bytes already handed to the dead socket are lost, while nats.js keeps whatever it is given after it
 * noticed and flushes that after the reconnect — so later events can be stored before earlier ones are
 * re-sent, and the caller only learns of it from a TIMEOUT it cannot tell from a lost message.
 *
 * Instead every event waits in one ordered queue until JetStream has acknowledged it. It is sent on a
 * connection of the outbox's own that never reconnects by itself: when that connection fails (or an ack
 * is overdue), it is closed, a new one is dialled until the server is back, and every unacknowledged
 * event is sent again, in order, under its message id. JetStream drops the ones it had stored already
 * (duplicate window: contracts/agent-event-stream.ts), so what a reader sees is each event once, in the
 * order it was published. The server processes one connection's messages in order, so what it stored
 * of a failed connection is a prefix of what was sent; re-sending from the first unacknowledged event
 * keeps that order.
 *
 * `publish` resolves once its events are stored. It rejects only for a message JetStream refuses for
 * good (too large, bad subject), or with {@link OutboxUnavailableError} after `giveUpAfterMs` without a
 * working connection — an infrastructure fault, never a provider error.
 */
export interface OutboxOptions {
  /** Dials a fresh connection (with `reconnect: false`: the outbox handles reconnection itself). */
  connect: () => Promise<NatsConnection>;
  /** Runs after each new connection before anything is sent on it (e.g. ensure the stream exists). */
  onConnect?: (nc: NatsConnection) => Promise<void>;
  /** An ack overdue by this long means the connection is treated as lost. */
  ackTimeoutMs?: number;
  /** Events sent before their acks are awaited: a token stream keeps flowing, memory stays bounded. */
  window?: number;
  /** Events queued beyond this make `publish` wait (bounded memory during an outage). */
  maxQueued?: number;
  /** A queued event not stored after this long (the server unreachable all the while) is given up. */
  giveUpAfterMs?: number;
  log?: (level: 'info' | 'warn', message: string) => void;
  now?: () => number;
}

/** NATS stayed unreachable for longer than the outbox waits: the event is not stored. */
export class OutboxUnavailableError extends Error {
  override readonly name = 'OutboxUnavailableError';
}

interface Item {
  subject: string;
  data: string;
  msgID: string;
  type: string;
  queuedAt: number;
  resolve: (ack: PubAck) => void;
  reject: (err: unknown) => void;
}

const RECONNECT_DELAYS_MS = [100, 250, 500, 1_000];

export class JetStreamOutbox implements AgentEventPublisher {
  private readonly queue: Item[] = [];
  private readonly spaceWaiters: Array<() => void> = [];
  private nc: NatsConnection | undefined;
  private js: JetStreamClient | undefined;
  private pumping = false;
  private closed = false;
  private outageSince: number | undefined;
  private readonly ackTimeoutMs: number;
  private readonly window: number;
  private readonly maxQueued: number;
  private readonly giveUpAfterMs: number;
  private readonly now: () => number;
  /** Events sent again after a lost connection (for logs and tests). */
  resent = 0;

  constructor(private readonly opts: OutboxOptions) {
    this.ackTimeoutMs = opts.ackTimeoutMs ?? 5_000;
    this.window = opts.window ?? 256;
    this.maxQueued = opts.maxQueued ?? 50_000;
    this.giveUpAfterMs = opts.giveUpAfterMs ?? 5 * 60_000;
    this.now = opts.now ?? Date.now;
  }

  async publish(sessionId: string, events: OutgoingEvent[]): Promise<PublishedSeqs> {
    if (this.closed) throw new OutboxUnavailableError('the event outbox is closed');
    while (this.queue.length >= this.maxQueued) await new Promise<void>((r) => this.spaceWaiters.push(r));
    const subject = agentEventSubject(sessionId);
    const acks = events.map((item) => {
      const envelope: AgentEventEnvelope = {
        v: 1,
        session_id: sessionId,
        ts: this.now(),
        event: item.event,
        ...(item.turn_id !== undefined ? { turn_id: item.turn_id } : {}),
        ...(item.attempt !== undefined ? { attempt: item.attempt } : {}),
        ...(item.subagent !== undefined ? { subagent: item.subagent } : {}),
      };
      return new Promise<PubAck>((resolve, reject) => {
        this.queue.push({ subject, data: JSON.stringify(envelope), msgID: `${sessionId}|${item.id}`, type: item.event.type, queuedAt: this.now(), resolve, reject });
      });
    });
    this.kick();
    const settled = await Promise.all(acks);
    // A duplicate (an event sent again) acks with the sequence it was first stored under.
    return settled.length > 0 ? { first_seq: settled[0]!.seq, last_seq: settled[settled.length - 1]!.seq } : {};
  }

  /** Events waiting for their ack (queued or sent). */
  get pending(): number {
    return this.queue.length;
  }

  /** Stops: waits briefly for what is queued, then rejects the rest and closes the connection. */
  async close(graceMs = 2_000): Promise<void> {
    const deadline = this.now() + graceMs;
    while (this.queue.length > 0 && this.now() < deadline) await sleep(20);
    this.closed = true;
    for (const item of this.queue.splice(0)) item.reject(new OutboxUnavailableError('the event outbox closed before the event was stored'));
    this.releaseSpace();
    await this.nc?.close().catch(() => undefined);
  }

  private kick(): void {
    if (this.pumping || this.closed) return;
    this.pumping = true;
    void this.pump().finally(() => {
      this.pumping = false;
      if (this.queue.length > 0 && !this.closed) this.kick();
    });
  }

  /** Sends the queue head in windows until the queue is empty; one pump at a time keeps the order. */
  private async pump(): Promise<void> {
    let failures = 0;
    while (this.queue.length > 0 && !this.closed) {
      const js = await this.connection();
      if (!js) return;
      const batch = this.queue.slice(0, this.window);
      const outcomes = await Promise.allSettled(batch.map((item) => this.send(js, item)));
      let lost: unknown;
      let notReady = false;
      for (let i = 0; i < batch.length; i++) {
        const item = batch[i]!;
        const outcome = outcomes[i]!;
        if (outcome.status === 'fulfilled') {
          this.settle(item, () => item.resolve(outcome.value));
        } else if (isConnectionLoss(outcome.reason)) {
          lost ??= outcome.reason;
        } else if (isNotReady(outcome.reason)) {
          notReady = true;
        } else {
          // JetStream refused this message for good (size, subject): only it fails.
          this.settle(item, () => item.reject(outcome.reason));
        }
      }
      if (lost === undefined && !notReady) {
        failures = 0;
        if (this.outageSince !== undefined) this.recovered();
        continue;
      }
      this.outageSince ??= this.now();
      this.resent += this.queue.length > 0 ? Math.min(this.queue.length, batch.length) : 0;
      if (lost !== undefined) await this.dropConnection(lost);
      this.giveUpStale();
      await sleep(RECONNECT_DELAYS_MS[Math.min(failures++, RECONNECT_DELAYS_MS.length - 1)]!);
    }
  }

  private send(js: JetStreamClient, item: Item): Promise<PubAck> {
    const h = natsHeaders();
    h.set(EVENT_TYPE_HEADER, item.type);
    return js.publish(item.subject, item.data, { msgID: item.msgID, headers: h, timeout: this.ackTimeoutMs });
  }

  /** Removes a settled item (always at or near the head: batches are the queue's head). */
  private settle(item: Item, done: () => void): void {
    const at = this.queue.indexOf(item);
    if (at >= 0) this.queue.splice(at, 1);
    done();
    this.releaseSpace();
  }

  private releaseSpace(): void {
    while (this.spaceWaiters.length > 0 && (this.queue.length < this.maxQueued || this.closed)) this.spaceWaiters.shift()!();
  }

  /** The current connection, dialling until one works; undefined once closed or everything was given up. */
  private async connection(): Promise<JetStreamClient | undefined> {
    for (let attempt = 0; !this.closed; attempt++) {
      if (this.js && this.nc && !this.nc.isClosed()) return this.js;
      if (this.queue.length === 0) return undefined;
      try {
        const nc = await this.opts.connect();
        try {
          await this.opts.onConnect?.(nc);
        } catch (err) {
          // Not this outbox's connection after all: closed, or every failed attempt would leave one open.
          await nc.close().catch(() => undefined);
          throw err;
        }
        this.nc = nc;
        this.js = nc.jetstream();
        return this.js;
      } catch (err) {
        this.outageSince ??= this.now();
        if (attempt === 0) this.opts.log?.('warn', `NATS unreachable, ${this.queue.length} event(s) held until it is back: ${(err as Error).message}`);
        this.giveUpStale();
        await sleep(RECONNECT_DELAYS_MS[Math.min(attempt, RECONNECT_DELAYS_MS.length - 1)]!);
      }
    }
    return undefined;
  }

  private async dropConnection(reason: unknown): Promise<void> {
    const nc = this.nc;
    this.nc = undefined;
    this.js = undefined;
    this.opts.log?.('warn', `NATS connection lost (${(reason as Error)?.message ?? String(reason)}); ${this.queue.length} event(s) will be sent again in order`);
    // Closed before anything is sent on a new one: the old connection sends nothing more.
    await nc?.close().catch(() => undefined);
  }

  private recovered(): void {
    const ms = this.now() - (this.outageSince ?? this.now());
    this.outageSince = undefined;
    this.opts.log?.('info', `NATS reachable again after ${ms} ms; events held meanwhile are stored`);
  }

  /** Events that waited longer than the outbox waits are given up, so their activity can fail and retry. */
  private giveUpStale(): void {
    const limit = this.now() - this.giveUpAfterMs;
    const stale = this.queue.filter((item) => item.queuedAt < limit);
    for (const item of stale) {
      this.settle(item, () => item.reject(new OutboxUnavailableError(`NATS JetStream unreachable for ${Math.round(this.giveUpAfterMs / 1000)} s: the event was not stored`)));
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
