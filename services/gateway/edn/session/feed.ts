import type { Logger } from '../../../common/logger';
import type { EventSubscription } from '../../events/agent-event-reader';
import { ApprovalGate } from '../../events/approval-gate';
import { ResponseHold } from '../../events/response-hold';
import { TurnStream } from '../../events/turn-stream';
import { addUsage, contextShare, contextTokens, type UsageLike } from '../../events/usage-totals';
import { TOOL_UPDATE_MAX_CHARS, toEdnEvents, type EdnEventOut, type SessionStateFacts } from '../../mapping/edn-events';
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
 * The one event feed of a connection: the focus session's agent events (JetStream, replay then live),
 * mapped to EDN and handed on in stream order. A request that must be answered before the events it
 * causes (prompt, switch) holds the feed; what arrives meanwhile waits and goes out right after the
 * response. Stopping the feed (focus moved, connection closed) drops anything not yet sent.
 */
export class FocusFeed {
  readonly stream = new TurnStream({ outputTailChars: TOOL_UPDATE_MAX_CHARS });
  /** Events that arrive while held wait in `waiting` and go out in order once nothing holds them. */
  private readonly holds = new ResponseHold({ deferRelease: true, onOpen: () => this.flush() });
  private readonly waiting: EdnEventOut[] = [];
  private stopped = false;
  /** Usage as last read: a turn's start shows it (it has not changed since), its end reads it afresh. */
  private usage: FooterUsage | undefined;
  /** Counts fresh usage reads: only the latest one may send its footer. */
  private footerGeneration = 0;
  /** Approval dialogs are shown only while the session lists their call (events/approval-gate.ts). */
  private readonly approvals: ApprovalGate<EdnEventOut>;

  constructor(
    readonly sessionId: string,
    private readonly subscription: EventSubscription,
    private readonly sink: FeedSink,
  ) {
    this.approvals = new ApprovalGate((callId) => sink.stillPending(sessionId, callId));
  }

  /** Reads until stopped; a read that fails says so with an `error` event. */
  start(): void {
    // The first turn's footer should not wait for a read: have the usage ready before it starts.
    void this.sink
      .footerUsage(this.sessionId)
      .then((fresh) => {
        if (this.footerGeneration === 0) this.usage ??= fresh;
      })
      .catch(() => undefined);
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
    return this.holds.hold();
  }

  stop(): void {
    this.stopped = true;
    this.waiting.length = 0;
    this.subscription.stop();
  }

  private async run(): Promise<void> {
    for await (const { seq, envelope } of this.subscription) {
      if (this.stopped) return;
      const read = this.stream.next(envelope);
      if (!read) continue;
      if (read.event.type === 'usage') this.addUsage(read.event);
      const mapped = toEdnEvents(this.sessionId, read);
      for (const event of mapped.events) {
        const stamped = { ...event, data: { ...event.data, 'session-seq': seq } };
        if (event.topic === 'ui/dialog-requested' && !(await this.approvals.requested(String(event.data['dialog-id']), stamped))) continue;
        this.deliver(stamped);
      }
      if (mapped.footer) this.footer(mapped.footer, mapped.events[0]);
      if (read.event.type === 'session.state' && read.event.phase === 'waiting_approval') {
        for (const dialog of await this.approvals.waiting(this.stream.pendingApprovals)) this.deliver(dialog);
      }
      if (this.stopped) return;
    }
  }

  /**
   * Sends the footer for a session state without ever holding up the stream: with usage known it
   * goes out at once, in stream order; when the usage must be read afresh (first footer, a turn has
   * ended) the read runs beside the stream and a footer with the fresh figures follows when it lands.
   * A read overtaken by a later state is dropped, so footers never go back in time.
   */
  private footer(state: SessionStateFacts, cause: EdnEventOut | undefined): void {
    const tags = { ...(cause?.id ? { id: cause.id } : {}), ...(cause?.turn ? { turn: cause.turn } : {}) };
    const send = () => {
      if (this.usage) this.deliver({ topic: 'footer/updated', data: this.footerData(state, this.usage), ...tags });
    };
    send();
    if (this.usage && state.turnActive) return;
    const generation = ++this.footerGeneration;
    void this.sink
      .footerUsage(this.sessionId)
      .then((fresh) => {
        if (generation !== this.footerGeneration || this.stopped) return;
        this.usage = fresh;
        send();
      })
      .catch((err: unknown) => this.sink.log.warn({ err, session: this.sessionId }, 'could not read the footer facts'));
  }

  /**
   * A step's usage, added to the figures last read, so the footer at a turn's end is right at once
   * (the fresh read that follows it says the same, from the store).
   */
  private addUsage(step: UsageLike): void {
    if (!this.usage) return;
    this.usage = { ...this.usage, usage: addUsage(this.usage.usage, step), context: { ...this.usage.context, share: contextShare(contextTokens(step), this.usage.context.window) } };
  }

  private footerData(state: SessionStateFacts, usage: FooterUsage): EdnMap {
    return footerPayload({
      sessionId: this.sessionId,
      ...usage,
      ...(state.sessionName ? { sessionName: state.sessionName } : {}),
      model: state.model,
      thinkingLevel: state.thinkingLevel,
      ...(state.phase === 'waiting_approval' ? { status: 'waiting for a tool approval' } : {}),
    });
  }

  private deliver(event: EdnEventOut): void {
    if (this.stopped) return;
    if (this.holds.held) this.waiting.push(event);
    else this.send(event);
  }

  /** Sends with the id of the request that caused the event, known by now even if it was not when mapped. */
  private send(event: EdnEventOut): void {
    const id = event.id ?? (event.turn ? this.stream.requestOf(event.turn) : undefined);
    // A turn's failure names the prompt that started it, as psi's error events do.
    const data = event.topic === 'error' && id && event.data.id === undefined ? { ...event.data, id, op: 'prompt' } : event.data;
    this.sink.emit(event.topic, data, id);
  }

  private flush(): void {
    while (!this.stopped && !this.holds.held && this.waiting.length > 0) {
      this.send(this.waiting.shift()!);
    }
  }
}
