import type { Logger } from '../../../common/logger';
import type { EventSubscription } from '../../events/agent-event-reader';
import { EdnEventMapper, type EdnEventOut, type SessionStateFacts } from '../../mapping/edn-events';
import type { EdnMap } from '../edn-value';
import { footerPayload, type FooterInput } from './footer';

/** What a footer shows besides the session state: the project and the usage so far (a store read). */
export type FooterUsage = Pick<FooterInput, 'projectPath' | 'usage' | 'context'>;

/** What a feed hands its events to, and asks for the facts a mapped event needs. */
export interface FeedSink {
  emit(topic: string, data: EdnMap, id?: string): void;
  /** The session's project and usage so far (reads the store). */
  footerUsage(sessionId: string): Promise<FooterUsage>;
  /** Whether a tool call still waits for an answer (a replayed approval may have been answered since). */
  stillPending(sessionId: string, toolCallId: string): Promise<boolean>;
  log: Logger;
}

/**
 * An approval announced this recently is live: the session may not list it as waiting yet (the turn
 * reports it a moment after announcing it), so it is shown without asking. An older one is a replay
 * and is shown only if it still waits.
 */
const LIVE_APPROVAL_MS = 5_000;

/**
 * The one event feed of a connection: the focus session's agent events (JetStream, replay then live),
 * mapped to EDN and handed on in stream order. A request that must be answered before the events it
 * causes (prompt, switch) holds the feed; what arrives meanwhile waits and goes out right after the
 * response. Stopping the feed (focus moved, connection closed) drops anything not yet sent.
 */
export class FocusFeed {
  readonly mapper: EdnEventMapper;
  private held = 0;
  private readonly waiting: EdnEventOut[] = [];
  private stopped = false;
  /** Usage as last read: a turn's start shows it (it has not changed since), its end reads it afresh. */
  private usage: FooterUsage | undefined;

  constructor(
    readonly sessionId: string,
    private readonly subscription: EventSubscription,
    private readonly sink: FeedSink,
  ) {
    this.mapper = new EdnEventMapper(sessionId);
  }

  /** Reads until stopped; a read that fails says so with an `error` event. */
  start(): void {
    void this.run().catch((err: unknown) => {
      if (this.stopped) return;
      this.sink.log.error({ err, session: this.sessionId }, 'the EDN event feed stopped');
      this.deliver({ topic: 'error', data: { 'session-id': this.sessionId, 'error-code': 'runtime/failed', 'error-message': `the event feed of session ${this.sessionId} stopped: switch to the session again to resume it` } });
    });
  }

  /**
   * Holds events until the returned release is called; the release lets them go on the next turn of
   * the event loop, after the response the caller is about to return has been written.
   */
  hold(): () => void {
    this.held += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      setImmediate(() => {
        this.held -= 1;
        if (this.held === 0) this.flush();
      });
    };
  }

  stop(): void {
    this.stopped = true;
    this.waiting.length = 0;
    this.subscription.stop();
  }

  private async run(): Promise<void> {
    for await (const { seq, envelope } of this.subscription) {
      if (this.stopped) return;
      const mapped = this.mapper.map(envelope);
      for (const event of mapped.events) {
        if (event.topic === 'ui/dialog-requested' && !(await this.showApproval(String(event.data['dialog-id']), envelope.ts))) continue;
        this.deliver({ ...event, data: { ...event.data, 'session-seq': seq } });
      }
      if (mapped.footer) {
        const footer = await this.footer(mapped.footer);
        const first = mapped.events[0];
        if (footer) this.deliver({ topic: 'footer/updated', data: footer, ...(first?.id ? { id: first.id } : {}), ...(first?.turn ? { turn: first.turn } : {}) });
      }
      if (this.stopped) return;
    }
  }

  /**
   * The footer for a session state. While a turn runs the usage read at its start is still true, so
   * the stream is not held up by a store read; once the turn has ended (nothing else flows) it is
   * read afresh.
   */
  private async footer(state: SessionStateFacts): Promise<EdnMap | undefined> {
    if (!this.usage || !state.turnActive) {
      const fresh = await this.sink.footerUsage(this.sessionId).catch((err: unknown) => {
        this.sink.log.warn({ err, session: this.sessionId }, 'could not read the footer facts');
        return undefined;
      });
      if (fresh) this.usage = fresh;
    }
    if (!this.usage) return undefined;
    return footerPayload({
      sessionId: this.sessionId,
      ...this.usage,
      ...(state.sessionName ? { sessionName: state.sessionName } : {}),
      model: state.model,
      thinkingLevel: state.thinkingLevel,
      ...(state.phase === 'waiting_approval' ? { status: 'waiting for a tool approval' } : {}),
    });
  }

  private async showApproval(toolCallId: string, ts: number): Promise<boolean> {
    if (Date.now() - ts < LIVE_APPROVAL_MS) return true;
    return this.sink.stillPending(this.sessionId, toolCallId).catch(() => true);
  }

  private deliver(event: EdnEventOut): void {
    if (this.stopped) return;
    if (this.held > 0) this.waiting.push(event);
    else this.send(event);
  }

  /** Sends with the id of the request that caused the event, known by now even if it was not when mapped. */
  private send(event: EdnEventOut): void {
    const id = event.id ?? (event.turn ? this.mapper.requestOf(event.turn) : undefined);
    // A turn's failure names the prompt that started it, as psi's error events do.
    const data = event.topic === 'error' && id && event.data.id === undefined ? { ...event.data, id, op: 'prompt' } : event.data;
    this.sink.emit(event.topic, data, id);
  }

  private flush(): void {
    while (!this.stopped && this.held === 0 && this.waiting.length > 0) {
      this.send(this.waiting.shift()!);
    }
  }
}
