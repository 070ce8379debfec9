import { ErrorCode, StrandError } from '../../../contracts/errors';
import type { ChatRequest, ChatStreamTerminal, WsEvent } from '../../../contracts/ws-rpc';
import type { Logger } from '../../common/logger';
import type { EventSubscription } from '../events/agent-event-reader';
import { TurnStream } from '../events/turn-stream';
import { toWsEvents, wsReply } from '../mapping/ws-events';
import type { SessionRef, SessionService } from '../sessions/session-service';
import { prepareChatSession } from './chat-session';

/** Where a chat's events and its one terminal frame go (a WebSocket request, an SSE response). */
export interface ChatSink {
  /** Marks the moment the chat starts running (the connection's queue let it go). */
  started(): void;
  event(event: WsEvent, seq?: number): void;
  /** Called exactly once per chat, unless the run was detached first. */
  terminal(frame: ChatStreamTerminal): void;
}

export interface ChatRunDeps {
  sessions: SessionService;
  log: Logger;
}

/** Who runs the chat and under which durable names. */
export interface ChatAddress {
  /** The stored session id: a `sessionId` the client chose, resolved through SessionService.clientSessionId. */
  sessionId: string;
  requestKey: string;
  /** The owner of sessions when auth is on; undefined with auth off. */
  principal: string | undefined;
}

const ABORTED_TERMINAL: ChatStreamTerminal = { type: 'error', errorMessage: 'the request was aborted', errorCode: 'ABORTED', error: { code: 'ABORTED', kind: 'aborted' } };

/** How a thrown error ends a chat: known errors keep their code and message, others are hidden. */
export function errorTerminal(err: unknown): ChatStreamTerminal {
  if (err instanceof StrandError) return { type: 'error', errorMessage: err.message, errorCode: err.code, error: { code: err.code } };
  const code = (err as { code?: unknown })?.code;
  if (typeof code === 'string' && code.startsWith('session/')) return { type: 'error', errorMessage: (err as Error).message, errorCode: code, error: { code } };
  return { type: 'error', errorMessage: 'internal error (see the gateway log)', errorCode: ErrorCode.INTERNAL, error: { code: ErrorCode.INTERNAL } };
}

/**
 * One chat: make its session ready, prompt it (queued behind a turn already running there, as the
 * session decides), and translate the turn's events until it finishes. The turn belongs to the
 * session, not to this run: `detach` (the client went away) stops reading and leaves the turn
 * running; `abort` cancels the turn through SessionService. `attach` follows a turn started earlier,
 * possibly by another gateway, from its first event, sending only what comes after `afterSeq`.
 */
export class ChatRun {
  private aborted = false;
  private detached = false;
  private ended = false;
  private turn: { id: string } | undefined;
  private cancelling = false;
  private cancelled = false;
  private subscription: EventSubscription | undefined;
  /** The chat's session, opened once by `start` or `attach`; a cancel goes through it. */
  private session: SessionRef | undefined;
  private stream: TurnStream | undefined;
  private model = '';

  constructor(
    private readonly deps: ChatRunDeps,
    readonly address: ChatAddress,
    private readonly sink: ChatSink,
  ) {}

  /** Starts the chat; resolves when it has ended or was detached. Never throws. */
  async start(request: ChatRequest): Promise<void> {
    const { sessions } = this.deps;
    const { sessionId, requestKey, principal } = this.address;
    try {
      this.sink.started();
      const target = await prepareChatSession(sessions, request, sessionId, principal);
      const session = (this.session = target.session);
      this.model = target.model;
      for (const message of target.notices) this.sink.event({ type: 'notice', level: 'warn', message, source: 'strand' });
      if (this.aborted) return this.end(ABORTED_TERMINAL);
      // A client that left meanwhile still gets its turn (it was told the task id): only reading stops.
      // The read is opened before the prompt, so not one event of the turn can slip by.
      const subscription = await session.events();
      const accepted = await session.prompt({ text: request.message, request_id: requestKey, behavior: 'queue' }).catch((err: unknown) => {
        subscription.stop();
        throw err;
      });
      this.turn = { id: accepted.turn_id };
      if (accepted.queued) this.sink.event({ type: 'status', state: { kind: 'queued', ...(accepted.queue_position ? { position: accepted.queue_position } : {}) } });
      if (this.aborted) this.requestCancel();
      await this.follow(subscription, undefined);
    } catch (err) {
      this.fail(err);
    }
  }

  /** Re-joins the turn of an earlier chat; resolves when it has ended or was detached. Never throws. */
  async attach(afterSeq: number | undefined): Promise<void> {
    const { sessions } = this.deps;
    const { sessionId, requestKey, principal } = this.address;
    try {
      const session = (this.session = await sessions.open(sessionId, principal));
      const found = await session.requestTurn(requestKey);
      if (!found) return this.end({ type: 'error', errorMessage: 'no such task', errorCode: 'TASK_NOT_FOUND', error: { code: 'TASK_NOT_FOUND' } });
      this.turn = { id: found.turn_id };
      this.model = (await session.describe()).model;
      this.sink.started();
      let subscription = await session.events(found.status === 'finished' ? 0 : undefined);
      // Without a cursor the read starts at the running turn; had ours just ended, read it from the start.
      if (found.status !== 'finished' && (await session.requestTurn(requestKey))?.status === 'finished') {
        subscription.stop();
        subscription = await session.events(0);
      }
      await this.follow(subscription, afterSeq);
    } catch (err) {
      this.fail(err);
    }
  }

  /**
   * Cancels the chat's turn; false when the chat has already ended. From now on no event is sent; the
   * terminal frame follows once the turn has ended (aborted, unless it finished first).
   */
  abort(): boolean {
    if (this.ended) return false;
    this.aborted = true;
    // The chat's stream follows its one turn: an abort never answered within it silences the rest.
    this.stream?.abortRequested();
    this.requestCancel();
    return true;
  }

  /** Stops reading (the client left); the turn runs on. */
  detach(): void {
    this.detached = true;
    this.subscription?.stop();
  }

  /**
   * Aborts the chat's turn by its id, once the session has handed it out: the session applies it
   * whether the turn runs, waits in its queue or is only starting (its answer is not a guess).
   */
  private requestCancel(): void {
    const turn = this.turn;
    // A turn is only known once the session was opened (start, attach).
    const session = this.session;
    if (!turn || !session || this.cancelled || this.cancelling) return;
    const { sessionId } = this.address;
    this.cancelling = true;
    void session
      .abort(undefined, turn.id)
      .then(() => (this.cancelled = true))
      .catch((err: unknown) => this.deps.log.warn({ err, session: sessionId, turn: turn.id }, 'could not cancel a turn'))
      .finally(() => (this.cancelling = false));
  }

  private async follow(subscription: EventSubscription, afterSeq: number | undefined): Promise<void> {
    this.subscription = subscription;
    if (this.detached) subscription.stop();
    const turnId = this.turn?.id ?? '';
    const stream = (this.stream = new TurnStream({ only: turnId }));
    if (this.aborted) stream.abortRequested();
    let lastError: { code: string; message: string; kind?: string; provider?: string } | undefined;
    try {
      for await (const { seq, envelope } of subscription) {
        if (this.detached) return;
        const read = stream.next(envelope);
        if (!read) continue;
        const e = read.event;
        if (e.type === 'error') lastError = e;
        if (!read.silenced && (afterSeq === undefined || seq > afterSeq)) for (const event of toWsEvents(read)) this.sink.event(event, seq);
        if (e.type === 'turn.finished' && e.turn_id === turnId) {
          if (e.outcome === 'done') return this.end({ type: 'done', reply: wsReply(stream.summary(turnId), this.model || this.deps.sessions.defaultModel) });
          if (e.outcome === 'aborted') return this.end(ABORTED_TERMINAL);
          const code = lastError?.code ?? 'TURN_FAILED';
          return this.end({
            type: 'error',
            errorMessage: lastError?.message ?? 'the turn failed',
            errorCode: code,
            error: { code, ...(lastError?.kind ? { kind: lastError.kind } : {}), ...(lastError?.provider ? { source: lastError.provider } : {}) },
          });
        }
      }
      if (!this.detached) this.end({ type: 'error', errorMessage: 'the event stream ended before the turn did', errorCode: ErrorCode.UNAVAILABLE, error: { code: ErrorCode.UNAVAILABLE } });
    } finally {
      subscription.stop();
    }
  }

  private fail(err: unknown): void {
    if (this.detached) return;
    const terminal = errorTerminal(err);
    if (terminal.type === 'error' && terminal.errorCode === ErrorCode.INTERNAL) this.deps.log.error({ err, session: this.address.sessionId }, 'a chat failed');
    this.end(terminal);
  }

  private end(frame: ChatStreamTerminal): void {
    if (this.ended || this.detached) return;
    this.ended = true;
    this.sink.terminal(frame);
  }
}
