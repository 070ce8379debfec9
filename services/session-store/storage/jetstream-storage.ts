import { DeliverPolicy, Events, StorageType, type ConsumerMessages, type JetStreamClient, type JetStreamManager, type JsMsg, type NatsConnection, type StreamInfo } from 'nats';
import { withDeadline } from '../../common/deadline';
import { failFast } from '../../common/fail-fast-consumer';
import { decodeSubjectToken, encodeSubjectToken } from '../../../contracts/session-store/subjects';
import { appliesBeforeAnswering, whyAbsenceIsDoubtful } from './absence-check';
import { StorageConflictError, type LoadResult, type LogRecord, type RemoteUpdate as Body, type StoragePort } from './port';

/**
 * The jetstream adapter: the same session logs, kept in one JetStream stream so several store
 * instances share one state. Each commit is one message on `<prefix>.<session token>` holding that
 * commit's records; a delete is a tombstone message, and the session's older messages are purged.
 *
 * Concurrency: every publish carries the subject's last sequence this instance has seen
 * (`expected last subject sequence`). If another instance wrote in between, JetStream refuses it and
 * `append` throws StorageConflictError: the domain reloads the session and computes the mutation again.
 *
 * Following: after loading, an ordered consumer tails the stream. What it hears of a session beyond
 * what this instance has seen is buffered and announced; the domain takes it with `takeRemote` under
 * the session's lock. Own messages are recognised by sequence (the ack sets it) and dropped.
 * Durability is JetStream's: file storage, acknowledged before `append` resolves.
 *
 * Catching up: the tail runs behind the stream by a little. `sync` asks JetStream for the newest
 * sequence of a session (or of the stream) and waits until the tail has heard it, so a request
 * answered here sees every commit acknowledged before it arrived, whichever instance made it.
 *
 * After a leader election: "no message" for a session this instance has seen a message of (written,
 * read, looked up, tailed) is never believed. For a session never seen here it is believed only when
 * the leader is not behind what this instance has seen (and, on servers older than 2.11, was not
 * elected moments ago: absence-check.ts). Otherwise the read fails and the caller answers
 * session/storage (retryable), never "no such session".
 */
export const DEFAULT_SESSIONS_STREAM = 'STRAND_SESSIONS';

export interface JetStreamStorageOptions {
  stream?: string;
  subjectPrefix?: string;
  replicas?: number;
}

/**
 * How long `sync` waits for the tail before it reports that it could not catch up (the caller then
 * reads the session directly) and the tail is made again. Well under the callers' 5 s request timeout,
 * so a stuck tail costs a read this much, not the read.
 */
const SYNC_TIMEOUT_MS = 1_500;
/** JetStream API calls (stream info, last message, consumer creation) fail after this, not hang. */
const API_TIMEOUT_MS = 3_000;
/** A range read fails when no message came for this long (its consumer's node died, say). */
const READ_IDLE_MS = 3_000;
/** The tail's pull requests: shorter than nats.js's 30 s, so its own heartbeat check runs often. */
const TAIL_EXPIRES_MS = 5_000;

/** A commit the tail heard from another instance, waiting for the domain to take it. */
interface Heard {
  seq: number;
  body: Body;
}

export class JetStreamStorage implements StoragePort {
  readonly name = 'jetstream';
  private readonly stream: string;
  private readonly prefix: string;
  private readonly js: JetStreamClient;
  private jsm?: Promise<JetStreamManager>;
  /** Per session: the last sequence this instance has seen (written or applied). */
  private readonly lastSeq = new Map<string, number>();
  /** Per session: what the tail heard beyond `lastSeq`, oldest first, until the domain takes it. */
  private readonly heard = new Map<string, Heard[]>();
  private tail?: ConsumerMessages;
  private tailDone?: Promise<void>;
  /** Bumped each time the tail is made again; a replaced tail's loop sees it and ends. */
  private tailGeneration = 0;
  private restarting = false;
  private closed = false;
  private changed: (sessionId: string) => void = () => undefined;
  /** Why the tail was made again, oldest first (tests and logs read it). */
  readonly tailRestarts: string[] = [];
  private loadedUpTo = 0;
  /** The newest stream sequence the tail has delivered (own writes included), and who waits for more. */
  private tailSeq = 0;
  private readonly tailWaiters = new Set<{ seq: number; settle: (reached: boolean) => void }>();
  /**
   * The highest stream sequence this instance knows to exist (loaded, tailed, written, or reported by
   * the stream), and the creation time of the stream it belongs to (a stream made again starts over).
   */
  private seenUpTo = 0;
  private streamCreated?: string;
  /**
   * Sessions the stream was seen to hold a message of (a lookup, a read, the tail): a session's
   * subject never empties (a delete leaves its tombstone), so a later "no message" for one of these
   * comes from a leader that is behind, never from the session being gone.
   */
  private readonly hadMessages = new Set<string>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly options: JetStreamStorageOptions = {},
  ) {
    this.stream = options.stream ?? DEFAULT_SESSIONS_STREAM;
    this.prefix = options.subjectPrefix ?? 'strand.store.log';
    this.js = nc.jetstream({ timeout: API_TIMEOUT_MS });
  }

  private subjectOf(sessionId: string): string {
    return `${this.prefix}.${encodeSubjectToken(sessionId)}`;
  }

  private sessionOf(subject: string): string {
    return decodeSubjectToken(subject.slice(this.prefix.length + 1));
  }

  /**
   * The manager, once the stream exists. One promise for every caller, so concurrent first writes
   * never run before the stream is created (a failed attempt is forgotten and tried again).
   */
  private manager(): Promise<JetStreamManager> {
    this.jsm ??= (async () => {
      const jsm = await this.nc.jetstreamManager({ timeout: API_TIMEOUT_MS });
      try {
        await jsm.streams.info(this.stream);
      } catch {
        await jsm.streams
          .add({ name: this.stream, subjects: [`${this.prefix}.>`], storage: StorageType.File, num_replicas: this.options.replicas ?? 1 })
          .catch((err: Error) => {
            if (!/already in use/.test(err.message)) throw err;
          });
      }
      return jsm;
    })().catch((err: unknown) => {
      this.jsm = undefined;
      throw err;
    });
    return this.jsm;
  }

  /** Records a sequence the stream is known to have had. */
  private saw(seq: number): void {
    if (seq > this.seenUpTo) this.seenUpTo = seq;
  }

  /** The stream's info, from its leader; what it reports is recorded as seen. */
  private async streamInfo(): Promise<StreamInfo> {
    const info = await (await this.manager()).streams.info(this.stream);
    if (this.streamCreated !== undefined && this.streamCreated !== info.created) {
      this.seenUpTo = 0;
      this.hadMessages.clear();
    }
    this.streamCreated = info.created;
    this.saw(info.state.last_seq);
    return info;
  }

  /**
   * Reads the messages of `filter` with sequence ≥ `startSeq` up to `untilSeq` (a sequence known to
   * carry a message of the filter, so the read knows when it has everything).
   */
  private async readRange(filter: string, startSeq: number, untilSeq: number, onMessage: (subject: string, seq: number, body: Body) => void, warnings: string[]): Promise<void> {
    if (untilSeq < startSeq) return;
    const consumer = failFast(await this.js.consumers.get(this.stream, { filterSubjects: filter, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: startSeq }));
    // Large pulls: a cold load reads the whole stream, and per-pull round trips dominate otherwise.
    // Bounded: a consumer whose node died delivers nothing, and nats.js would wait on it for minutes
    // while the caller holds the session's lock.
    const messages = await withDeadline(consumer.consume({ max_messages: 4096 }), API_TIMEOUT_MS, `${filter}: the stream did not open a consumer`, (late) => late.stop());
    let idle = false;
    let reached = false;
    let lastDelivered = startSeq - 1;
    let idleTimer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => {
        idle = true;
        messages.stop();
      }, READ_IDLE_MS);
    };
    arm();
    try {
      for await (const m of messages) {
        arm();
        try {
          onMessage(m.subject, m.seq, m.json<Body>());
        } catch {
          warnings.push(`${m.subject} #${m.seq}: skipped an unreadable message`);
        }
        lastDelivered = m.seq;
        this.saw(m.seq);
        if (m.seq >= untilSeq || m.info.pending === 0) {
          reached = true;
          break;
        }
      }
      if (idle) throw new Error(`${filter}: no message for ${READ_IDLE_MS} ms while reading up to #${untilSeq}`);
      // The consumer ended (its node died, say) before the read got everything: what was read is a
      // prefix, and taking it for the whole would lose sessions or commits.
      if (!reached) throw new Error(`${filter}: the read ended at #${lastDelivered}, before #${untilSeq}`);
    } finally {
      clearTimeout(idleTimer);
      messages.stop();
    }
  }

  /** The sequence of the newest message on `subject`, or 0 when it has none. */
  private async lastOnSubject(subject: string): Promise<number> {
    const jsm = await this.manager();
    try {
      const seq = (await jsm.streams.getMessage(this.stream, { last_by_subj: subject })).seq;
      this.saw(seq);
      this.hadMessages.add(this.sessionOf(subject));
      return seq;
    } catch (err) {
      if (/no message found/i.test((err as Error).message)) return 0;
      throw err;
    }
  }

  /**
   * Throws when the leader's "no message for `sessionId`" (its stream `info` fetched with or after
   * the lookup) is not to be believed, given what this instance had seen before asking.
   */
  private doubtAbsence(sessionId: string, seenBefore: number, createdBefore: string | undefined, info: StreamInfo): void {
    // A stream made again since (another creation time) starts over: nothing seen of the old one counts.
    const seen = createdBefore === undefined || createdBefore === info.created ? seenBefore : 0;
    // The version of the node this instance is connected to: a cluster's nodes run one version.
    const doubt = whyAbsenceIsDoubtful(info, seen, Date.now(), appliesBeforeAnswering(this.nc.info?.version));
    if (doubt) throw new Error(`no message for session ${sessionId}, but ${doubt}`);
  }

  async loadAll(): Promise<LoadResult> {
    const sessions = new Map<string, LogRecord[]>();
    const warnings: string[] = [];
    const state = (await this.streamInfo()).state;
    const last = state.last_seq;
    await this.readRange(`${this.prefix}.>`, 1, state.messages === 0 ? 0 : last, (subject, seq, body) => {
      const id = this.sessionOf(subject);
      this.lastSeq.set(id, seq);
      if ('deleted' in body) sessions.delete(id);
      else {
        const list = sessions.get(id);
        if (list) for (const r of body.records) list.push(r); // push, not spread: linear in the log
        else sessions.set(id, [...body.records]);
      }
    }, warnings);
    this.loadedUpTo = last;
    return { sessions, warnings };
  }

  async loadOne(sessionId: string): Promise<LogRecord[] | undefined> {
    let records: LogRecord[] | undefined;
    const seenBefore = this.seenUpTo;
    const createdBefore = this.streamCreated;
    const last = await this.lastOnSubject(this.subjectOf(sessionId));
    if (last === 0) {
      // A session's subject never empties (a delete leaves its tombstone): "no message" for a session
      // this instance has seen messages of comes from a stream leader that has not applied its log
      // yet. Reported as a failure (the caller answers session/storage and retries), never as "the
      // session does not exist". For a session never seen here, the leader's word is weighed as a
      // read's is (absence-check.ts): a reload after a lagging tail comes this way.
      if (this.lastSeq.has(sessionId) || this.hadMessages.has(sessionId)) throw new Error(`the sessions stream has no message for session ${sessionId}, which it had: not caught up`);
      this.doubtAbsence(sessionId, seenBefore, createdBefore, await this.streamInfo());
      return undefined;
    }
    await this.readRange(this.subjectOf(sessionId), 1, last, (_s, seq, body) => {
      this.lastSeq.set(sessionId, seq);
      if ('deleted' in body) records = undefined;
      else if (records) for (const r of body.records) records.push(r);
      else records = [...body.records];
    }, []);
    return records && records.length > 0 ? records : undefined;
  }

  async append(sessionId: string, records: LogRecord[]): Promise<void> {
    await this.publish(sessionId, { records });
  }

  private async publish(sessionId: string, body: Body): Promise<number> {
    await this.manager();
    try {
      const ack = await this.js.publish(this.subjectOf(sessionId), JSON.stringify(body), {
        expect: { lastSubjectSequence: this.lastSeq.get(sessionId) ?? 0 },
      });
      this.lastSeq.set(sessionId, ack.seq);
      this.saw(ack.seq);
      return ack.seq;
    } catch (err) {
      if (/wrong last sequence/i.test((err as Error).message)) {
        throw new StorageConflictError(`session ${sessionId} was changed by another store instance`);
      }
      throw err;
    }
  }

  async remove(sessionId: string): Promise<void> {
    const seq = await this.publish(sessionId, { deleted: true });
    const jsm = await this.manager();
    // Purge what precedes the tombstone (by sequence, so a re-creation published meanwhile by
    // another instance survives): the space is freed and followers still learn of the delete.
    await jsm.streams.purge(this.stream, { filter: this.subjectOf(sessionId), seq });
  }

  async follow(changed: (sessionId: string) => void): Promise<void> {
    this.changed = changed;
    this.tailSeq = this.loadedUpTo;
    // The first tail must start (a store that cannot follow the others must not serve).
    await this.startTail(this.tailGeneration);
    this.watchConnection();
  }

  /**
   * Opens the tail (an ordered consumer) from the sequence after the last one it delivered. An
   * ordered consumer is one replica, kept by the node that led the stream when it was made: when
   * that node dies, nats.js notices only after missed heartbeats (15 s at its defaults) and then
   * retries making a new one with a 30 s backoff, so the tail stalled for up to a minute and every
   * read waited for it. The tail is therefore made again by this class, at once, whenever it is
   * found stuck (see `sync`) or the connection moved to another node.
   */
  private async startTail(generation: number): Promise<void> {
    const consumer = failFast(
      await this.js.consumers.get(this.stream, {
        filterSubjects: `${this.prefix}.>`,
        deliver_policy: DeliverPolicy.StartSequence,
        opt_start_seq: this.tailSeq + 1,
      }),
    );
    const messages = await withDeadline(consumer.consume({ expires: TAIL_EXPIRES_MS }), API_TIMEOUT_MS, 'the sessions stream did not open a consumer', (late) => late.stop());
    if (generation !== this.tailGeneration || this.closed) {
      messages.stop();
      return;
    }
    this.tail = messages;
    this.tailDone = (async () => {
      for await (const m of messages) {
        if (generation !== this.tailGeneration) break;
        if (m.seq <= this.tailSeq) continue; // already delivered by the tail this one replaced
        this.hear(m, this.changed);
        this.tailSeq = m.seq;
        this.saw(m.seq);
        for (const w of this.tailWaiters) if (w.seq <= this.tailSeq) w.settle(true);
      }
    })()
      .catch(() => undefined)
      .then(() => {
        // Ended on its own (nats.js gave up on the consumer): make another.
        if (generation === this.tailGeneration && !this.closed) this.restartTail('the tail ended');
      });
  }

  /**
   * Replaces the tail (in the background; one replacement at a time), retrying with a short backoff
   * until a new one is open. Commits it missed are delivered by the new one: it starts after the last
   * sequence the old one delivered.
   */
  private restartTail(why: string): void {
    if (this.closed || this.restarting) return;
    this.restarting = true;
    this.tailRestarts.push(why);
    const generation = ++this.tailGeneration;
    this.tail?.stop();
    this.tail = undefined;
    void (async () => {
      for (let attempt = 0; !this.closed && generation === this.tailGeneration; attempt++) {
        try {
          await this.startTail(generation);
          break;
        } catch {
          await new Promise((r) => setTimeout(r, Math.min(250 * 2 ** attempt, 2_000)));
        }
      }
      this.restarting = false;
    })();
  }

  /** A reconnect (to another node, or the same one restarted) may have lost the tail's consumer. */
  private watchConnection(): void {
    void (async () => {
      for await (const s of this.nc.status()) {
        if (this.closed) break;
        if (s.type === Events.Reconnect) this.restartTail(`reconnected to ${String(s.data)}`);
      }
    })().catch(() => undefined);
  }

  /** Buffers and announces a commit of another instance that this one has not seen yet. */
  private hear(m: JsMsg, changed: (sessionId: string) => void): void {
    const id = this.sessionOf(m.subject);
    this.hadMessages.add(id);
    if (m.seq <= (this.lastSeq.get(id) ?? 0)) return; // own write, or already read by a reload
    let body: Body;
    try {
      body = m.json<Body>();
    } catch {
      return; // unreadable: skipped here; a reload or restart reports it
    }
    const list = this.heard.get(id) ?? [];
    list.push({ seq: m.seq, body });
    this.heard.set(id, list);
    changed(id);
  }

  async sync(sessionId?: string, forRead = false): Promise<string[] | undefined> {
    const waiting = () => (sessionId === undefined ? [...this.heard.keys()] : this.heard.has(sessionId) ? [sessionId] : []);
    let target: number;
    if (sessionId === undefined) {
      target = (await this.streamInfo()).state.last_seq;
    } else {
      const unseen = !this.lastSeq.has(sessionId) && !this.heard.has(sessionId);
      // What this instance had seen before asking: the leader's answer is compared with it.
      const seenBefore = this.seenUpTo;
      const createdBefore = this.streamCreated;
      // A read of a session never seen here: the stream's info, asked beside the lookup (no added
      // round trip), says whether the leader's "no message" can be believed.
      const [last, info] = await Promise.all([this.lastOnSubject(this.subjectOf(sessionId)), forRead && unseen ? this.streamInfo() : undefined]);
      target = last;
      // Held nowhere here, yet seen on the stream before (looked up, heard by the tail): "no message" is a leader behind.
      if (target === 0 && !this.lastSeq.has(sessionId) && this.hadMessages.has(sessionId)) throw new Error(`the sessions stream has no message for session ${sessionId}, which it had: not caught up`);
      if (target === 0 && info) this.doubtAbsence(sessionId, seenBefore, createdBefore, info);
      // Written (or already applied) here: nothing newer exists. (Read after the lookup: the tail's
      // news may have been applied meanwhile.)
      if (target <= (this.lastSeq.get(sessionId) ?? 0)) return [];
      // The tail went past the session's newest commit, yet this instance neither holds it nor has
      // it waiting: a load or a tail skipped it. The caller reads the session directly.
      if (target <= this.tailSeq && !this.heard.has(sessionId)) return undefined;
    }
    if (target <= this.tailSeq) return waiting();
    // No tail (not following, or being made again): the caller reads the session directly.
    if (!this.tail) return undefined;
    const reached = await new Promise<boolean>((resolve) => {
      const waiter = {
        seq: target,
        settle: (ok: boolean) => {
          clearTimeout(timer);
          this.tailWaiters.delete(waiter);
          resolve(ok);
        },
      };
      const timer = setTimeout(() => waiter.settle(false), SYNC_TIMEOUT_MS);
      this.tailWaiters.add(waiter);
    });
    if (reached) return waiting();
    this.restartTail(`the tail had not reached #${target} after ${SYNC_TIMEOUT_MS} ms (it was at #${this.tailSeq})`);
    return undefined;
  }

  takeRemote(sessionId: string): Body[] {
    const list = this.heard.get(sessionId);
    if (!list) return [];
    this.heard.delete(sessionId);
    const out: Body[] = [];
    for (const h of list) {
      if (h.seq <= (this.lastSeq.get(sessionId) ?? 0)) continue;
      this.lastSeq.set(sessionId, h.seq);
      out.push(h.body);
    }
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.tailGeneration++;
    this.tail?.stop();
    await this.tailDone;
    for (const w of this.tailWaiters) w.settle(false);
  }
}
