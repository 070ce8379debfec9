import type { KV, NatsConnection, Subscription } from 'nats';
import { runningActivitySchema, workerPresenceSubject, type RunningActivity } from '../../../contracts/worker-presence';

/**
 * Notices a dead worker within about a second and fails its running activities on its behalf, so a
 * turn whose worker was killed goes on at once on another worker instead of waiting for Temporal's
 * heartbeat timeout (and then for the dead worker's sticky queue to time out).
 *
 * A worker counts as dead only when two independent signs agree:
 * - its presence subject has no responder: NATS says so at once when the process's connection is gone,
 *   while a live worker that is merely slow (a long GC, a busy event loop) still has its subscription and
 *   only answers late — so slowness never looks like death;
 * - Temporal has recorded no heartbeat of the activity for `confirmMs` (0.75 s; heartbeats arrive every 0.5 s),
 *   so a worker that only lost NATS for a moment (a NATS restart) is not mistaken for a dead one.
 * Of several survivors, the one that deletes the activity's bucket entry first acts; the others see it gone.
 */
export interface TemporalPort {
  /**
   * What changes whenever the activity heartbeats (its last heartbeat time and state); null when that
   * attempt is no longer running (finished, timed out, retried).
   */
  heartbeatMark(entry: RunningActivity): Promise<string | null>;
  /** Moves the workflow's next task off the dead worker's sticky queue, then fails the activity attempt. */
  failOnBehalf(entry: RunningActivity, message: string): Promise<void>;
}

export interface CrashWatcherOptions {
  nc: NatsConnection;
  kv: KV;
  selfId: string;
  temporal: TemporalPort;
  intervalMs?: number;
  /**
   * How long an activity's heartbeat must stay frozen, once its worker has no responder, before the
   * worker counts as dead (default 750 ms: heartbeats reach Temporal every 0.5 s, so a live worker's
   * mark moves within it; the presence check already said the process is gone, this only rules out a
   * worker that merely lost NATS). Most of a failover's time: 1 s put `npm run chaos`'s worst
   * failover at 3.1 s.
   */
  confirmMs?: number;
  /**
   * How long a presence ping waits for its answer (default 250 ms). A late answer only means "unknown"
   * (no judgement this round), so a short wait never makes a slow worker look dead; a long one delays
   * the verdict: a ping that goes out in the moment before NATS has noticed a killed worker's closed
   * socket is delivered to that socket and never answered, and with a 1 s wait that put half the
   * takeovers in `npm run chaos` a second later (2.3 s instead of 1.15 s after the kill).
   */
  pingTimeoutMs?: number;
  log?: (level: 'info' | 'warn', message: string) => void;
  now?: () => number;
}

interface Listed {
  entry: RunningActivity;
  revision: number;
  /** Set while its worker has no responder: the heartbeat mark seen first and when. */
  suspect?: { mark: string; since: number };
}

export class CrashWatcher {
  private readonly listed = new Map<string, Listed>();
  private readonly pinging = new Set<string>();
  private presence: Subscription | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly now: () => number;
  /** Activities failed on a dead worker's behalf (for logs and tests). */
  takenOver = 0;

  constructor(private readonly opts: CrashWatcherOptions) {
    this.now = opts.now ?? Date.now;
  }

  async start(): Promise<void> {
    // Answering on our own subject is what tells the others we live.
    this.presence = this.opts.nc.subscribe(workerPresenceSubject(this.opts.selfId), { callback: (_err, msg) => msg.respond() });
    const watch = await this.opts.kv.watch();
    void (async () => {
      for await (const e of watch) {
        if (e.operation !== 'PUT') {
          this.listed.delete(e.key);
          continue;
        }
        const parsed = runningActivitySchema.safeParse(safeJson(e.string()));
        if (parsed.success) this.listed.set(e.key, { entry: parsed.data, revision: e.revision });
      }
    })().catch((err: unknown) => this.opts.log?.('warn', `crash watcher: the running-activities watch ended: ${(err as Error).message}`));
    const tick = () => {
      if (this.stopped) return;
      void this.check().finally(() => {
        if (!this.stopped) this.timer = setTimeout(tick, this.opts.intervalMs ?? 250);
      });
    };
    tick();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.presence?.unsubscribe();
  }

  /** One round: ping every other worker that has activities listed; judge the ones without a responder. */
  private async check(): Promise<void> {
    const byWorker = new Map<string, Array<[string, Listed]>>();
    for (const [key, l] of this.listed) {
      if (l.entry.worker_id === this.opts.selfId) continue;
      byWorker.set(l.entry.worker_id, [...(byWorker.get(l.entry.worker_id) ?? []), [key, l]]);
    }
    await Promise.all(
      [...byWorker].map(async ([worker, entries]) => {
        if (this.pinging.has(worker)) return;
        this.pinging.add(worker);
        try {
          const state = await this.ping(worker);
          if (state === 'alive') for (const [, l] of entries) delete l.suspect;
          if (state === 'gone') await Promise.all(entries.map(([key, l]) => this.judge(key, l)));
        } finally {
          this.pinging.delete(worker);
        }
      }),
    );
  }

  private async ping(worker: string): Promise<'alive' | 'gone' | 'unknown'> {
    try {
      await this.opts.nc.request(workerPresenceSubject(worker), '', { timeout: this.opts.pingTimeoutMs ?? 250 });
      return 'alive';
    } catch (err) {
      // "No responders" is NATS's own word that nobody holds the subscription; anything else is doubt.
      return (err as { code?: string }).code === '503' ? 'gone' : 'unknown';
    }
  }

  private async judge(key: string, l: Listed): Promise<void> {
    let mark: string | null;
    try {
      mark = await this.opts.temporal.heartbeatMark(l.entry);
    } catch {
      return; // Temporal unreachable: no judgement now.
    }
    if (mark === null) {
      // That attempt ended some other way (its heartbeat timed out, it finished): the entry is stale.
      this.listed.delete(key);
      await this.opts.kv.delete(key, { previousSeq: l.revision }).catch(() => undefined);
      return;
    }
    if (!l.suspect || l.suspect.mark !== mark) {
      l.suspect = { mark, since: this.now() };
      return;
    }
    if (this.now() - l.suspect.since < (this.opts.confirmMs ?? 750)) return;
    // Claim it: only the survivor whose delete matches the entry's revision acts.
    try {
      await this.opts.kv.delete(key, { previousSeq: l.revision });
    } catch {
      return;
    }
    this.listed.delete(key);
    const e = l.entry;
    this.opts.log?.('warn', `worker ${e.worker_id} is gone (no presence, no heartbeat for ${this.now() - l.suspect.since} ms): failing its ${e.activity_type} of ${e.workflow_id} so it runs again elsewhere`);
    await this.opts.temporal
      .failOnBehalf(e, `the worker running this ${e.activity_type} (${e.worker_id}) died`)
      .then(() => void this.takenOver++)
      .catch((err: unknown) => this.opts.log?.('info', `could not fail ${e.activity_type} of ${e.workflow_id} for dead worker ${e.worker_id}: ${(err as Error).message}`));
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
