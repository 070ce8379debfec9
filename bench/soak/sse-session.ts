import { openSse, type SseConnection } from '../../test/harness/sse-client';
import { call } from '../chaos/gateway-api';
import { SOAK_MODEL } from './soak-stack';
import { wallNow, type ClientHooks, type SoakSession, type TurnResult } from './turn-result';

interface Waiting {
  promptAt: number;
  turnId?: string;
  firstDeltaAt?: number;
  /** Turns whose `turn.finished` arrived before the prompt's 202 named the turn. */
  finished: Map<string, string>;
  errors: string[];
  /** Ends the turn with the outcome `turn.finished` gave, or with what went wrong instead. */
  end: (outcome: string, problem?: string) => void;
}

/**
 * An HTTP client: a session made with `POST /api/sessions`, its events read from one long-lived
 * `GET /api/sessions/{id}/events` stream (as a web page's EventSource does), each turn a `POST
 * …/prompt` that ends at the turn's `turn.finished`.
 */
export class SseSoakSession implements SoakSession {
  readonly protocol = 'sse' as const;
  private waiting?: Waiting;
  private closed = false;

  private constructor(
    private readonly base: string,
    readonly sessionId: string,
    private readonly conn: SseConnection,
    private readonly hooks: ClientHooks,
  ) {
    void this.read();
  }

  static async open(base: string, workspace: string, hooks: ClientHooks): Promise<SseSoakSession> {
    const created = await call<{ session_id: string }>(base, 'POST', '/api/sessions', { project_path: workspace, model: SOAK_MODEL }, 60_000);
    if (created.status !== 201) throw new Error(`POST /api/sessions answered ${created.status}: ${JSON.stringify(created.body).slice(0, 300)}`);
    const sessionId = created.body.session_id;
    const conn = await openSse(`${base}/api/sessions/${sessionId}/events`);
    if (conn.status !== 200) throw new Error(`GET /api/sessions/${sessionId}/events answered ${conn.status}`);
    return new SseSoakSession(base, sessionId, conn, hooks);
  }

  turn(index: number, timeoutMs = 120_000): Promise<TurnResult> {
    return new Promise((resolve) => {
      const promptAt = wallNow();
      const timer = setTimeout(() => w.end('timeout', `no turn.finished within ${timeoutMs / 1000} s`), timeoutMs);
      const w: Waiting = {
        promptAt,
        finished: new Map(),
        errors: [],
        end: (outcome, problem) => {
          clearTimeout(timer);
          if (this.waiting !== w) return;
          this.waiting = undefined;
          if (problem) w.errors.push(problem);
          const ok = outcome === 'done' && w.errors.length === 0;
          const error = ok ? undefined : w.errors.join('; ') || `turn ${w.turnId ?? '?'} ended ${outcome}`;
          resolve({ protocol: 'sse', sessionId: this.sessionId, promptAt, firstDeltaAt: w.firstDeltaAt, endAt: wallNow(), outcome: ok || outcome !== 'done' ? outcome : 'error', error });
        },
      };
      this.waiting = w;
      call<{ turn_id: string }>(this.base, 'POST', `/api/sessions/${this.sessionId}/prompt`, { text: `Soak turn ${index}: what does the README say?`, request_id: `soak-${this.sessionId}-${index}` }, 60_000).then(
        (res) => {
          if (res.status !== 202) return w.end('refused', `prompt answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
          w.turnId = res.body.turn_id;
          const early = w.finished.get(w.turnId);
          if (early !== undefined) w.end(early);
        },
        (err: Error) => w.end('refused', `prompt failed: ${err.message}`),
      );
    });
  }

  close(): void {
    this.closed = true;
    this.conn.close();
  }

  private async read(): Promise<void> {
    try {
      for (;;) {
        // No timeout of its own: a keepalive comes every 15 s, and each turn has its own deadline.
        const e = await this.conn.next(24 * 3600_000);
        if (!e) break;
        this.handle(e.event, e.data);
      }
      if (!this.closed) this.lost('the event stream ended');
    } catch (err) {
      if (!this.closed) this.lost(`the event stream failed: ${(err as Error).message}`);
    }
  }

  private lost(message: string): void {
    if (this.waiting) this.waiting.end('error', message);
    else this.hooks.onError('sse', this.sessionId, message);
  }

  private handle(event: string, raw: string): void {
    const at = wallNow();
    const w = this.waiting;
    if (event === 'message.delta') {
      const data = JSON.parse(raw) as { content?: string };
      if (!data.content) return;
      this.hooks.onDelta(this.sessionId, data.content, at);
      if (w && w.firstDeltaAt === undefined) w.firstDeltaAt = at;
    } else if (event === 'error') {
      const message = `error event: ${raw.slice(0, 300)}`;
      if (w) w.errors.push(message);
      else this.hooks.onError('sse', this.sessionId, message);
    } else if (event === 'turn.finished') {
      const data = JSON.parse(raw) as { turn_id: string; outcome: string };
      if (!w) return this.hooks.onError('sse', this.sessionId, `turn.finished of ${data.turn_id} (${data.outcome}) with no turn waiting`);
      if (w.turnId === undefined) w.finished.set(data.turn_id, data.outcome);
      else if (data.turn_id === w.turnId) w.end(data.outcome);
    }
  }
}
