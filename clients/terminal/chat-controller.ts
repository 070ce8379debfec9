import { randomUUID } from 'node:crypto';
import { ChatView } from './chat-view';
import { SessionFeed } from '../core/session-feed';
import { refreshSessionFacts } from '../core/session-facts';
import { followEvents, type StreamStatus } from './event-stream';
import { attempt, TurnControl, turnCallsOn } from '../core/turn-control';
import { GatewayClient, type PendingApproval, type SessionStats, type SessionView } from './gateway-client';
import type { GatewayAddress } from './gateway-address';
import { PromptHistory } from './input-buffer';
import { runSlashCommand } from './slash-actions';
import { parseSlashCommand } from '../../contracts/slash-commands';
import { blocksOfHistory } from './stored-history';

/** A choice the chat asks for (a session, a model, a fork point): the UI shows it, `choose` answers it. */
export interface Picker {
  title: string;
  items: Array<{ label: string; value: string }>;
  /** Keys that answer at once (`y` → 'y'), besides moving to an item and Enter. */
  keys?: Record<string, string>;
  choose(value: string): Promise<void> | void;
}

/**
 * The interactive chat's state and actions, without any drawing: the session open, its view model
 * fed by the followed event stream, the footer's facts, the picker shown, and what a key or a
 * submitted line does. The Ink components subscribe and draw; everything here is reachable without a
 * terminal.
 */
export class ChatController {
  readonly client: GatewayClient;
  view = new ChatView();
  sessionId: string | undefined;
  session: SessionView | undefined;
  stats: SessionStats | undefined;
  connection: StreamStatus = { kind: 'connecting' };
  picker: Picker | undefined;
  history = new PromptHistory();
  /** Set by /quit: the UI unmounts. */
  quitting = false;
  /** Counts reloads of the open session (an undo moved its conversation): the UI draws it anew. */
  redrawn = 0;
  private feed: SessionFeed | undefined;
  private readonly listeners = new Set<() => void>();
  /** The open session's turns (clients/core/turn-control.ts): what the page does with them too. */
  private turns: Turns | undefined;
  /** The view whose stored conversation has been read (reload waits for it). */
  private historyRead: ChatView | undefined;

  constructor(
    address: GatewayAddress,
    readonly cwd: string,
  ) {
    this.client = new GatewayClient(address);
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed(): void {
    for (const l of this.listeners) l();
  }

  /** Something a person should read, shown in the conversation. */
  say(level: 'info' | 'warning' | 'error', text: string): void {
    this.view.notice(level, text);
    this.changed();
  }

  /** Runs an action and shows its failure instead of throwing (a UI callback has nowhere to throw to). */
  attempt(what: string, action: () => Promise<unknown>): Promise<void> {
    return attempt(what, action, this.report).then(() => undefined);
  }

  private readonly report = (problem: string | undefined) => problem && this.say('error', problem);

  /**
   * Opens a session in the clients' one order (clients/core/session-feed.ts): its event stream first
   * (events wait), then, once the stream is live, the stored conversation (a turn still running is
   * left to its replayed events), then the events that waited. So a turn that ran while no chat was
   * open shows, and nothing shows twice.
   */
  async open(sessionId: string): Promise<void> {
    this.feed?.close();
    this.turns?.close();
    this.picker = undefined;
    this.sessionId = sessionId;
    const view = (this.view = new ChatView());
    this.turns = this.turnsOf(sessionId);
    // Each open has its own feed: the terminal reads a moved conversation by opening it anew (reload).
    this.feed = new SessionFeed({
      follow: (handlers) => followEvents(this.client, sessionId, { onEvent: handlers.onEvent, onStatus: handlers.onState, onFatal: (message, status) => handlers.onFatal(status, message) }),
      readStored: () => this.loadHistory(sessionId, view),
      // What waited for the stored conversation is drawn with it; only what comes after acts
      // (a revert's conversation.moved among them would open the session again and again).
      apply: (data, waited) => {
        view.apply(data);
        if (!waited) this.afterEvent(data);
      },
      settled: async () => {
        await this.refresh();
        this.historyRead = view;
        this.changed();
      },
      reconnected: () => void this.refresh(),
      // A closed feed (the session was opened again) tells nothing more: these are this open's.
      onState: (status) => {
        this.connection = status;
        this.changed();
      },
      onFatal: (_status, message) => this.say('error', message),
    });
    this.changed();
  }

  /**
   * Reads the open session again from scratch (the open path: stream, stored conversation, events that
   * waited), for when its conversation changed under the view: a revert or redo moved the active leaf,
   * so turns left or came back. A new stream, not the feed's reread: an event of the revert still on
   * its way on the old stream is dropped with it, so it cannot read the conversation once more after
   * the revert's line was said. Resolves once the conversation is read.
   */
  async reload(): Promise<void> {
    const id = this.sessionId;
    if (!id) return;
    this.redrawn += 1;
    await this.open(id);
    await new Promise<void>((resolve) => {
      const done = () => (this.historyRead === this.view || this.sessionId !== id ? (stop(), resolve()) : undefined);
      const stop = this.subscribe(done);
      done();
    });
  }

  private async loadHistory(sessionId: string, view: ChatView): Promise<void> {
    try {
      const session = await this.client.session(sessionId);
      const items = await this.client.messages(sessionId);
      view.addHistory(blocksOfHistory(items, session.active_turn ?? undefined), session.active_turn ?? undefined);
      this.history = new PromptHistory(items.filter((i) => i.message?.role === 'user').map((i) => (i.message!.content.find((b) => b.type === 'text') as { text?: string } | undefined)?.text ?? ''));
    } catch (err) {
      this.say('error', `could not read the conversation: ${(err as Error).message}`);
    }
  }

  /** Re-reads what events do not carry: the session's model and thinking level, totals, approvals (clients/core/session-facts.ts). */
  async refresh(): Promise<void> {
    const id = this.sessionId;
    if (!id) return;
    await refreshSessionFacts({
      api: this.client,
      id,
      view: () => this.view,
      keep: (session, stats) => {
        this.session = session;
        this.stats = stats;
      },
      changed: () => this.changed(),
      current: () => id === this.sessionId,
    });
  }

  private afterEvent(data: Parameters<ChatView['apply']>[0]): void {
    // A revert or redo (here, another chat, the page, curl) moved the conversation: read it again.
    if (data.type === 'conversation.moved') return void this.reload();
    if (data.type === 'turn.finished') void this.refresh();
    this.turns?.applied(data);
    this.changed();
  }

  /** The turns of one open: its calls on this session (closed when the chat opens a session again). */
  private turnsOf(id: string): Turns {
    return new TurnControl({
      // Always `queue`: a line typed while a turn runs is its follow-up, never a 409.
      calls: turnCallsOn(this.client, id, (text, requestId) => this.client.prompt(id, text, requestId, true)),
      view: () => this.view,
      changed: () => this.changed(),
      report: this.report,
      requestId: () => randomUUID(),
    });
  }

  /** A submitted line: a slash command, or a prompt (queued as a follow-up while a turn runs). */
  async submit(text: string): Promise<void> {
    if (!text.trim()) return;
    this.history.add(text);
    const slash = parseSlashCommand(text, 'chat');
    if (slash && !slash.ok) return this.say('warning', slash.error);
    if (slash) return this.attempt(`/${slash.command.name}`, () => runSlashCommand(this, slash.command));
    await this.turns?.send(text);
  }

  /** Ctrl-S: the typed text steers the running turn (its next model step reads it) instead of waiting. */
  steer(text: string): void {
    if (!this.turns || !text.trim()) return;
    if (this.view.turn === undefined) return void this.submit(text);
    this.history.add(text);
    this.say('info', `steering: ${text}`);
    void this.turns.steer(text, 'the steering text was not sent');
  }

  /** Esc: interrupts the running turn (answered once it has ended). */
  abort(): void {
    if (!this.turns || this.view.turn === undefined) return;
    this.say('warning', 'aborting the turn…');
    void this.turns.interrupt('the turn was not aborted');
  }

  approve(toolCallId: string, always: boolean): void {
    void this.turns?.approve(toolCallId, always);
  }

  reject(toolCallId: string, reason: string): void {
    void this.turns?.reject(toolCallId, reason);
  }

  /** Shows a picker; `undefined` closes it. */
  pick(picker: Picker | undefined): void {
    this.picker = picker;
    this.changed();
  }

  close(): void {
    this.feed?.close();
    this.turns?.close();
  }
}

/** The terminal's turn controller: the gateway's approvals, no attachments, its view model. */
type Turns = TurnControl<PendingApproval, never, ChatView>;
