import { isKeyword, type EdnMap, type EdnValue } from '../../services/gateway/edn/edn-value';
import { dataOf, EdnConnection, kindOf } from '../edn-connection';
import { EMACS_TOPICS } from '../emacs-topics';
import { SOAK_SCRIPT } from './soak-stack';
import { wallNow, type ClientHooks, type SoakSession, type TurnResult } from './turn-result';

const CLIENT_INFO = { name: 'strand-soak', version: '0.1.0', 'protocol-version': '1.0', features: [] };
const REQUEST_TIMEOUT_MS = 60_000;

const nameOf = (v: EdnValue | undefined) => (isKeyword(v) ? v.name : String(v));

interface Waiting {
  promptAt: number;
  firstDeltaAt?: number;
  /** The stop reason of the turn's last `assistant/message` so far (`tool-use` between steps). */
  lastStop?: string;
  errors: string[];
  end: (outcome: string, problem?: string) => void;
}

/**
 * An EDN RPC client over TCP (docs/edn.md) driven as psi's Emacs client drives it: handshake (its
 * focus session is the soak session; its project is the gateway's cwd), subscribe to the Emacs topics,
 * set_model to the soak script, then each turn a `prompt`. A turn has ended at the first
 * `session/updated` with `:is-streaming false` after an `assistant/message` whose stop reason is
 * `:stop` (the answer after the tool); another final stop reason, or an `error` event, fails it.
 */
export class EdnSoakSession implements SoakSession {
  readonly protocol = 'edn' as const;
  sessionId = '';
  private connection!: EdnConnection;
  private waiting?: Waiting;

  private constructor(private readonly hooks: ClientHooks) {}

  static async open(address: string, hooks: ClientHooks): Promise<EdnSoakSession> {
    const session = new EdnSoakSession(hooks);
    session.connection = await EdnConnection.open(address, {
      idPrefix: 'soak',
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      now: wallNow,
      who: () => session.sessionId || 'a new connection',
      onFrame: (frame, at, line) => session.handle(frame, at, line),
      onBadFrame: (message) => session.problem(message),
      onLost: (message) => session.lost(message),
    });
    const hello = await session.request('handshake', { 'client-info': CLIENT_INFO });
    session.sessionId = String((hello['server-info'] as EdnMap)['session-id']);
    await session.request('subscribe', { topics: EMACS_TOPICS });
    await session.request('set_model', { provider: 'scripted', 'model-id': SOAK_SCRIPT });
    return session;
  }

  turn(index: number, timeoutMs = 120_000): Promise<TurnResult> {
    return new Promise((resolve) => {
      const promptAt = wallNow();
      const timer = setTimeout(() => w.end('timeout', `no end of turn within ${timeoutMs / 1000} s`), timeoutMs);
      const w: Waiting = {
        promptAt,
        errors: [],
        end: (outcome, problem) => {
          clearTimeout(timer);
          if (this.waiting !== w) return;
          this.waiting = undefined;
          if (problem) w.errors.push(problem);
          const ok = outcome === 'done' && w.errors.length === 0;
          resolve({ protocol: 'edn', sessionId: this.sessionId, promptAt, firstDeltaAt: w.firstDeltaAt, endAt: wallNow(), outcome: ok || outcome !== 'done' ? outcome : 'error', error: ok ? undefined : w.errors.join('; ') });
        },
      };
      this.waiting = w;
      this.request('prompt', { message: `Soak turn ${index}: what does the README say?` }).catch((err: Error) => w.end('refused', err.message));
    });
  }

  close(): void {
    this.connection.close();
  }

  private request(op: string, params: EdnMap): Promise<EdnMap> {
    return this.connection.request(op, params);
  }

  private handle(frame: EdnMap, at: number, line: string): void {
    const kind = kindOf(frame);
    if (kind !== 'event') return this.problem(`a frame of kind ${String(kind)}: ${line.slice(0, 200)}`);
    const data = dataOf(frame);
    if (data['session-id'] !== undefined && data['session-id'] !== this.sessionId) return;
    const w = this.waiting;
    switch (frame.event) {
      case 'assistant/delta':
        if (!data.text) return;
        this.hooks.onDelta(this.sessionId, String(data.text), at);
        if (w) w.firstDeltaAt ??= at;
        return;
      case 'assistant/message':
        if (w) w.lastStop = nameOf(data['stop-reason']);
        return;
      case 'session/updated':
        // Between the steps (after the tool call's message) the turn goes on, whatever the state says.
        if (w?.lastStop !== undefined && w.lastStop !== 'tool-use' && data['is-streaming'] === false) w.end(w.lastStop === 'stop' ? 'done' : w.lastStop);
        return;
      case 'error':
        return this.problem(`error event: ${line.slice(0, 300)}`);
    }
  }

  private problem(message: string): void {
    if (this.waiting) this.waiting.errors.push(message);
    else this.hooks.onError('edn', this.sessionId, message);
  }

  /** The connection failed or closed, not by `close` (its pending requests are already rejected). */
  private lost(message: string): void {
    if (this.waiting) this.waiting.end('error', message);
    else this.hooks.onError('edn', this.sessionId, message);
  }
}
