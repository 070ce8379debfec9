import os from 'node:os';
import type { NatsConnection } from 'nats';
import type { EdnMap } from '../services/gateway/edn/edn-value';
import { dataOf, EdnConnection, kindOf } from './edn-connection';
import { latencyTarget, measureRun, progress, runLevel, startLatencyStack, summarizeLevel, type Arrival, type Received } from './latency-common';
import { ms, nowMs, percentile } from './stats';
import { EMACS_TOPICS } from './emacs-topics';

/**
 * Added latency of the gateway's EDN RPC transport over TCP (docs/edn.md) on the real local
 * stack: for every streamed delta, from the event's publication to JetStream (its envelope's `ts`,
 * set by the worker right before the publish) to (a) a direct NATS subscriber on the agent-events
 * subjects — the floor, in the same run and the same process as the EDN clients — and (b) the EDN
 * client's `assistant/delta` event. The added latency is (b) − (a) per delta, both clocked by this
 * process. Each session is one TCP connection driven the way psi's Emacs client drives it:
 * handshake → subscribe (its topic list) → set_model to the scripted script → prompt. Every session
 * is set up before any prompts, so the level's turns stream at once. Levels: 1 and 50 sessions, each
 * streaming DELTAS scripted deltas DELAY ms apart; p50/p99 per run, median of RUNS runs, over the
 * whole run and over the deltas published while every session was streaming (latency-common.ts);
 * the target is judged on the latter, the level's concurrency proper. Run:
 * `npm run bench:edn` (BENCH_RUNS, BENCH_LEVELS, BENCH_DELTAS, BENCH_DELTA_DELAY_MS change the
 * defaults). Prints one JSON document; progress on stderr.
 *
 * Settling: the connection's event feed answers set_model with a `footer/updated`, and building it
 * reads the session (a workflow query) while later events, the next turn's deltas included, wait
 * behind it. That read has taken 1.4–2 s on a loaded machine, so a prompt sent right after set_model
 * can see its whole stream delayed by it. By default each session waits for that footer (it names
 * the new model) before the prompts go out, so the figures are the streaming path's; the wait is
 * reported as `set_model_to_footer_ms`. BENCH_EDN_SETTLE=0 prompts right after set_model's response
 * instead, to measure the stall.
 */
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const LEVELS = (process.env.BENCH_LEVELS ?? '1,50').split(',').map(Number);
// A 10 s answer at 50 ms per delta: long enough that, at 50, every stream overlaps the others for
// most of its length after the turns have started (which loads the machine for a few seconds).
const DELTAS = Number(process.env.BENCH_DELTAS ?? 200);
const DELAY_MS = Number(process.env.BENCH_DELTA_DELAY_MS ?? 50);
const TURN_TIMEOUT_MS = 300_000;
const REQUEST_TIMEOUT_MS = 120_000;
const SETTLE = process.env.BENCH_EDN_SETTLE !== '0';
const SCRIPT = 'edn-latency-bench';

const CLIENT_INFO = { name: 'strand-bench-edn', version: '0.1.0', 'protocol-version': '1.0', features: [] };

type Frame = EdnMap;

/**
 * One EDN RPC session over its own TCP connection (edn-connection.ts): during a turn it records when
 * each `assistant/delta` for its focus session arrived (the time the chunk holding it was read, before
 * any parsing). Any failure of the connection or the turn fails what waits.
 */
class EdnBenchSession {
  private connection!: EdnConnection;
  private turn?: { arrivals: Arrival[]; sawMessage: boolean; resolve: (a: Arrival[]) => void; reject: (err: Error) => void };
  private failure?: Error;
  private eventWaiter?: { match: (f: Frame) => boolean; resolve: () => void; reject: (err: Error) => void };
  sessionId = '';
  /** set_model's request → the footer naming the new model (the feed has caught up); NaN without settling. */
  settleMs = NaN;

  private constructor() {}

  static async open(address: string): Promise<EdnBenchSession> {
    const session = new EdnBenchSession();
    session.connection = await EdnConnection.open(address, {
      idPrefix: 'bench',
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      now: nowMs,
      who: () => session.sessionId || 'a new session',
      onFrame: (frame, at, line) => session.handle(frame, at, line),
      onBadFrame: (message) => session.fail(new Error(message)),
      onLost: (message) => session.fail(new Error(message)),
    });
    return session;
  }

  /** Handshake, the Emacs client's subscribe, then the scripted model; the session is the handshake's focus. */
  async prepare(): Promise<void> {
    const hello = await this.request('handshake', { 'client-info': CLIENT_INFO });
    this.sessionId = String((hello['server-info'] as EdnMap)['session-id']);
    await this.request('subscribe', { topics: EMACS_TOPICS });
    const t0 = nowMs();
    const setModel = this.request('set_model', { provider: 'scripted', 'model-id': SCRIPT });
    if (!SETTLE) return void (await setModel);
    // The footer may come before or after set_model's response: wait for both.
    await Promise.all([setModel, this.nextEvent((f) => f.event === 'footer/updated' && String(dataOf(f)['model-text']).startsWith(`(scripted) ${SCRIPT} `))]);
    this.settleMs = nowMs() - t0;
  }

  /** The next event matching `match` (one waiter at a time); rejects with the connection's failure. */
  private nextEvent(match: (f: Frame) => boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.sessionId}: no matching event within ${REQUEST_TIMEOUT_MS} ms`)), REQUEST_TIMEOUT_MS);
      this.eventWaiter = { match, resolve: () => (clearTimeout(timer), resolve()), reject: (err) => (clearTimeout(timer), reject(err)) };
    });
  }

  /** Prompts and resolves with the deltas' arrivals once the turn is over (its message, then idle). */
  streamTurn(): Promise<Arrival[]> {
    const done = new Promise<Arrival[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`turn of ${this.sessionId} did not finish within ${TURN_TIMEOUT_MS} ms`)), TURN_TIMEOUT_MS);
      this.turn = {
        arrivals: [],
        sawMessage: false,
        resolve: (a) => (clearTimeout(timer), resolve(a)),
        reject: (err) => (clearTimeout(timer), reject(err)),
      };
    });
    this.request('prompt', { message: 'stream please' }).catch((err: Error) => this.turn?.reject(err));
    return done;
  }

  close(): void {
    this.failure ??= new Error('closed by the benchmark');
    this.connection.close();
  }

  private request(op: string, params: EdnMap): Promise<EdnMap> {
    if (this.failure) return Promise.reject(this.failure);
    return this.connection.request(op, params);
  }

  private handle(frame: Frame, at: number, line: string): void {
    const kind = kindOf(frame);
    if (kind === 'event' && this.eventWaiter?.match(frame)) {
      this.eventWaiter.resolve();
      this.eventWaiter = undefined;
    }
    if (kind !== 'event' || !this.turn) return;
    const data = dataOf(frame);
    if (data['session-id'] !== undefined && data['session-id'] !== this.sessionId) return;
    switch (frame.event) {
      case 'assistant/delta':
        this.turn.arrivals.push({ at, text: String(data.text) });
        break;
      case 'assistant/message':
        this.turn.sawMessage = true;
        break;
      case 'session/updated':
        if (this.turn.sawMessage && data['is-streaming'] === false) {
          const { arrivals, resolve } = this.turn;
          this.turn = undefined;
          resolve(arrivals);
        }
        break;
      case 'error':
        this.fail(new Error(`turn of ${this.sessionId}: ${line.slice(0, 300)}`));
        break;
    }
  }

  private fail(err: Error): void {
    if (this.failure && !this.turn && !this.eventWaiter) return;
    this.failure ??= err;
    this.connection.fail(err);
    this.eventWaiter?.reject(err);
    this.eventWaiter = undefined;
    this.turn?.reject(err);
    this.turn = undefined;
  }
}

/**
 * `sessions` connections set up first, then all prompted at once; every connection is closed after.
 * Each session's set_model → footer wait goes to `settled`.
 */
async function streams(address: string, sessions: number, settled: number[]): Promise<Received[]> {
  const opened: EdnBenchSession[] = [];
  try {
    await Promise.all(
      Array.from({ length: sessions }, async () => {
        const s = await EdnBenchSession.open(address);
        opened.push(s);
        await s.prepare();
        settled.push(s.settleMs);
      }),
    );
    return await Promise.all(opened.map(async (s) => ({ sessionId: s.sessionId, arrivals: await s.streamTurn() })));
  } finally {
    for (const s of opened) s.close();
  }
}

const oneRun = (address: string, nc: NatsConnection, sessions: number, settled: number[] = []) => measureRun(nc, () => streams(address, sessions, settled));

async function main() {
  const { stack, nc, stop } = await startLatencyStack({ name: 'edn', script: SCRIPT, deltas: DELTAS, delayMs: DELAY_MS });
  try {
    progress(`warm-up session (EDN TCP at ${stack.urls.edn})`);
    await oneRun(stack.urls.edn, nc, 1);
    const levels = [];
    for (const sessions of LEVELS) {
      const settled: number[] = [];
      const runs = await runLevel(RUNS, sessions, 'sessions', () => oneRun(stack.urls.edn, nc, sessions, settled));
      levels.push({
        sessions,
        ...summarizeLevel(runs, 'edn_assistant_delta_ms'),
        // Not part of the stream's latency: how long the feed took to show set_model (see Settling above).
        set_model_to_footer_ms: SETTLE ? { p50: ms(percentile(settled, 50)), p99: ms(percentile(settled, 99)), max: ms(Math.max(...settled)) } : null,
      });
    }
    const at50 = levels.find((l) => l.sessions === 50);
    console.log(
      JSON.stringify(
        {
          bench: 'edn-latency',
          transport: 'tcp',
          runs: RUNS,
          deltas_per_session: DELTAS,
          delta_delay_ms: DELAY_MS,
          settled_before_prompt: SETTLE,
          measured: 'publish (envelope ts) → direct NATS subscriber (floor) and → EDN :event assistant/delta over TCP; added = EDN − floor per delta, same process',
          cores: os.cpus().length,
          levels,
          target: latencyTarget(at50, 'added_p99_ms_at_50_sessions'),
        },
        null,
        2,
      ),
    );
  } finally {
    await stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
