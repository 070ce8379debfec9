import type { HttpEventData } from '../../../contracts/http-events';
import { compactResultText } from '../../../contracts/user-texts';
import { ChatView } from '../../terminal/chat-view';
import { blocksOfHistory } from '../../terminal/stored-history';
import { TurnControl, turnCallsOn } from '../../core/turn-control';
import { api, type PendingApproval, type PromptImage, type SessionSettings, type SessionStats, type SessionView, type SettingsPatch } from './api';
import { followEvents, type ConnectionState } from './event-follower';
import { SettingsState } from './settings-state';
import { Reverts } from './revert';
import { SessionFeed } from '../../core/session-feed';
import { refreshSessionFacts } from '../../core/session-facts';
import { lastTurnOf } from './job-watch';

/** A file a turn wrote, edited or deleted (`file.changed`). */
export interface FileChange {
  path: string;
  operation: 'write' | 'edit' | 'delete';
}

/** The view model `strand chat` uses, with the page's own hint for a turn waiting at a budget cap. */
function newView(): ChatView {
  const view = new ChatView();
  view.budgetHint = () => 'Raise it in Settings → Budget to continue, or Stop the turn';
  return view;
}

/**
 * One open session of the page: its conversation (the view model `strand chat` uses, clients/terminal/
 * chat-view.ts, fed by the followed event stream), the facts events do not carry (model, totals,
 * pending approvals: re-read on reconnection and at each turn's end), and what the buttons do. No
 * drawing here: components subscribe and draw.
 *
 * Opening follows the stream first and buffers it; once the stream is live the stored conversation is
 * read (a turn still running is left to its replayed events), then the buffer is applied. So a turn that
 * ran while no page was open shows, and nothing shows twice.
 */
export class ChatSession {
  /** Replaced when the conversation is read anew (a revert or redo moved its active leaf). */
  view = newView();
  /** Undo and redo (revert.ts). */
  readonly reverts = new Reverts(this);
  session: SessionView | undefined;
  stats: SessionStats | undefined;
  /** Every setting (`GET …/settings`): read with the rest, and again whenever the session announces a change. */
  get settings(): SessionSettings | undefined {
    return this.settingsState.current;
  }
  private readonly settingsState = new SettingsState();
  /** A compaction asked for from this page is running. */
  compacting = false;
  connection: ConnectionState = { kind: 'connecting' };
  /** Set when the stream cannot be followed at all. */
  fatal: string | undefined;
  /** Files each turn changed, by turn id. */
  readonly files = new Map<string, FileChange[]>();
  /** Last problem of an action (a refused prompt, an approval that did not go through). */
  problem: string | undefined;
  private readonly listeners = new Set<() => void>();
  /** The session's turns (clients/core/turn-control.ts): what `strand chat` does with them too. */
  private readonly turns: TurnControl<PendingApproval, PromptImage, ChatView>;
  /** The stream and the stored conversation, in the clients' one order (clients/core/session-feed.ts). */
  private readonly feed: SessionFeed;
  private notifyTimer: ReturnType<typeof setTimeout> | undefined;
  private eventTurn: string | undefined;

  /**
   * `job`: the session is a job's (job-watch.ts). The page follows its stream from the start, so the
   * whole job reads as it happened (each turn's states, events and end), and while the job runs its
   * last stored turn is left to its replayed events, as a running turn is.
   */
  constructor(
    readonly id: string,
    private readonly job?: { readonly running: boolean },
  ) {
    this.turns = new TurnControl({
      calls: turnCallsOn(api, this.id, (text, requestId, images) => api.prompt(this.id, text, requestId, images)),
      view: () => this.view,
      changed: () => this.changed(),
      report: (problem) => {
        this.problem = problem;
        if (problem) this.changed();
      },
      requestId: () => crypto.randomUUID(),
    });
    this.feed = new SessionFeed({
      follow: (handlers) => followEvents(id, handlers, job ? 0 : undefined),
      readStored: (first) => this.loadHistory(first),
      apply: (data) => this.apply(data),
      settled: async (first) => {
        await this.refresh();
        // After an undo or redo the fresh view says what it did (revert.ts).
        if (!first && this.reverts.line) this.view.notice('info', this.reverts.line);
      },
      reconnected: () => void this.refresh(),
      onState: (state) => {
        this.connection = state;
        this.changed();
      },
      onFatal: (status, message) => {
        this.fatal = status === 404 ? 'this session does not exist (or is not yours)' : `the event stream answered ${status}: ${message}`;
        this.changed();
      },
    });
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Listeners run at most every few milliseconds: a fast stream of deltas draws once per batch. */
  changed(): void {
    if (this.notifyTimer !== undefined) return;
    this.notifyTimer = setTimeout(() => {
      this.notifyTimer = undefined;
      for (const l of this.listeners) l();
    }, 16);
  }

  close(): void {
    this.feed.close();
    this.turns.close();
    clearTimeout(this.notifyTimer);
    this.listeners.clear();
  }

  /** A turn is running (or about to: the phase says so before its first event). */
  get running(): boolean {
    return this.turns.running;
  }

  private apply(data: HttpEventData): void {
    // A turn started here or elsewhere (its first event names it) drops the revert a redo would restore (docs/undo.md).
    if ('turn_id' in data && data.turn_id !== this.eventTurn) this.reverts.prompted();
    // HTTP's file.changed names no turn: a session runs one turn at a time, the one of the last event that named one.
    if ('turn_id' in data) this.eventTurn = data.turn_id;
    const turn = this.view.turn ?? this.eventTurn;
    // A revert or redo (here, in another tab, curl, `strand chat`) moved the conversation: read it again.
    if (data.type === 'conversation.moved') return void this.reloadConversation();
    // Between turns a file changes only by a revert or redo (its conversation.moved follows, if the leaf moved).
    if (data.type === 'file.changed' && !this.running) return;
    if (data.type === 'file.changed' && turn) {
      const list = this.files.get(turn) ?? [];
      if (!list.some((f) => f.path === data.path && f.operation === data.operation)) list.push({ path: data.path, operation: data.operation });
      this.files.set(turn, list);
    }
    this.view.apply(data);
    if (data.type === 'turn.finished') void this.refresh();
    // Between turns `agent.state` also announces a settings change (another tab, curl); during a turn the refresh at its end reads them.
    if (data.type === 'agent.state' && data.state === 'idle' && !this.view.turn) void this.readSettings();
    if (data.type === 'tool.call' && data.requires_approval) void this.turns.readApprovals();
    this.turns.applied(data);
    this.changed();
  }

  /**
   * Reads the conversation anew into a fresh view (events arriving meanwhile wait and follow it).
   * Calls while one runs make one more read after it, so the last change is always read.
   */
  reloadConversation(): Promise<void> {
    return this.feed.reread();
  }

  private async loadHistory(first: boolean): Promise<void> {
    if (!first) this.view = newView();
    try {
      const session = await api.session(this.id);
      this.session = session;
      const items = await api.messages(this.id);
      const live = session.active_turn ?? (this.job?.running ? lastTurnOf(items) : undefined);
      this.view.addHistory(blocksOfHistory(items, live), live);
    } catch (err) {
      this.view.notice('error', `could not read the conversation: ${(err as Error).message}`);
    }
  }

  /** Re-reads what events do not carry: the session's model and thinking level, settings, totals, approvals (clients/core/session-facts.ts). */
  refresh(): Promise<void> {
    return refreshSessionFacts({
      api,
      id: this.id,
      view: () => this.view,
      keep: (session, stats) => {
        this.session = session;
        this.stats = stats;
      },
      changed: () => this.changed(),
      alongside: () => this.settingsState.read(() => api.settings(this.id).catch(() => undefined)),
    });
  }

  /** Re-reads the settings: a change made elsewhere (another tab, curl) is announced as `agent.state`. */
  private async readSettings(): Promise<void> {
    try {
      if (await this.settingsState.read(() => api.settings(this.id))) this.changed();
    } catch {
      // The next state change or turn end reads them again.
    }
  }

  /** Runs an action; a failure is shown (`problem`), not thrown (a click handler has nowhere to throw to). */
  private attempt(what: string, action: () => Promise<unknown>): Promise<boolean> {
    return this.turns.attempt(what, action);
  }

  /** A prompt, with the images attached to it; while a turn runs it waits as a follow-up. */
  send(text: string, images: Array<PromptImage & { name: string }> = []): Promise<boolean> {
    const attached = images.map(({ media_type, data }) => ({ media_type, data }));
    return this.turns.send(text, attached, () => {
      if (images.length) this.view.notice('info', `attached to the prompt: ${images.map((i) => i.name).join(', ')}`);
    });
  }

  /** Text the running turn's next model step reads (calls still waiting for approval are skipped). */
  async steer(text: string): Promise<boolean> {
    const sent = await this.turns.steer(text);
    if (sent) {
      this.view.notice('info', `steering: ${text}`);
      this.changed();
    }
    return sent;
  }

  stop(): Promise<boolean> {
    return this.turns.interrupt();
  }

  approve(toolCallId: string, always: boolean): Promise<boolean> {
    return this.turns.approve(toolCallId, always);
  }

  reject(toolCallId: string, reason: string): Promise<boolean> {
    return this.turns.reject(toolCallId, reason);
  }

  setModel(model: string): Promise<boolean> {
    const slash = model.indexOf('/');
    return this.attempt('the model was not changed', async () => {
      if (slash <= 0) throw new Error(`name the model as <provider>/<model> ("${model}")`);
      const changed = await api.setModel(this.id, model.slice(0, slash), model.slice(slash + 1));
      if (changed.notice) this.view.notice('info', changed.notice);
      await this.refresh();
    });
  }

  /** Changes some settings (`PATCH …/settings`); the answer is every setting after the change. */
  changeSettings(patch: SettingsPatch): Promise<boolean> {
    const changing = this.settingsState.change(patch, () => api.changeSettings(this.id, patch), () => api.settings(this.id));
    this.changed();
    return this.attempt('the settings were not changed', async () => {
      try {
        await changing;
      } finally {
        this.changed();
      }
    });
  }

  /**
   * Summarises the older conversation now (only between turns). The summary shows as the session's
   * `compaction.finished` event, in every tab; one with nothing old enough to summarise says so here.
   */
  compact(): Promise<boolean> {
    this.compacting = true;
    this.changed();
    return this.attempt('the conversation was not compacted', async () => {
      try {
        const result = await api.compact(this.id);
        if (!result.compacted) this.view.notice('info', compactResultText(result));
        await this.refresh();
      } finally {
        this.compacting = false;
        this.changed();
      }
    });
  }

  setThinking(level: string): Promise<boolean> {
    return this.attempt('the thinking level was not changed', async () => {
      await api.setThinking(this.id, level);
      await this.refresh();
    });
  }
}
