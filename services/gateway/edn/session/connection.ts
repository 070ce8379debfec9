import type { Logger } from '../../../common/logger';
import type { JobService } from '../../jobs/job-service';
import type { SessionRef, SessionService } from '../../sessions/session-service';
import type { EdnMap } from '../edn-value';
import { EdnErrorCode, EdnOpError, type EdnOutbound, type EdnPeer, type EdnRequest, type EdnSessionHandler } from '../protocol';
import { messageToEdn } from './content';
import { toEdnError } from './errors';
import { FocusFeed, type FeedSink } from './feed';
import type { OpContext, OpHandler, PendingAction, Snapshot } from './op-context';
import { checkOpParams } from './op-params';
import { optText } from './params';
import { contextSnapshot, footerSnapshot, SessionFacts, sessionUpdatedSnapshot } from './session-facts';
import { TopicSubscription } from './topics';
import { modelParts } from '../../../../contracts/models';

const PROTOCOL_VERSION = '1.0';
/** What strand's EDN server offers beyond the base protocol (psi names its EQL support the same way). */
const SERVER_FEATURES = ['eql-graph'];

/**
 * One EDN protocol session: its focus session, its topic subscription, its one event feed (the focus
 * session's events), the dialogs and pickers it showed. Ops are looked up in `ops` and get an
 * `OpContext`; every failure becomes an `EdnOpError` here, in one place.
 */
export class EdnSessionConnection implements EdnSessionHandler {
  private focusId: string | undefined;
  private focusing: Promise<string> | undefined;
  private feed: FocusFeed | undefined;
  private closed = false;
  private readonly topics = new TopicSubscription();
  private readonly dialogs = new Map<string, string>();
  private readonly actions = new Map<string, PendingAction>();
  private readonly sink: FeedSink;
  /** Until the handshake's answer is out, feed events wait here (a session joined mid-turn replays at once). */
  private beforeHandshake: Array<[string, EdnMap, string | undefined]> | undefined = [];

  constructor(
    private readonly deps: { sessions: SessionService; jobs: JobService; log: Logger },
    private readonly out: EdnOutbound,
    private readonly peer: EdnPeer,
    private readonly ops: Readonly<Record<string, OpHandler>>,
  ) {
    const { sessions, log } = deps;
    this.sink = {
      emit: (topic, data, id) => (this.beforeHandshake ? this.beforeHandshake.push([topic, data, id]) : this.emit(topic, data, id)),
      footerUsage: async (sessionId) => {
        const facts = this.facts(sessionId);
        const [view, stats] = await Promise.all([facts.view(), facts.stats()]);
        return { projectPath: view.project_path, usage: stats.usage, context: stats.context };
      },
      stillPending: async (sessionId, callId) => (await sessions.open(sessionId, this.peer.principal)).stillPending(callId),
      log,
    };
  }

  /** The handshake creates (or finds) the focus session: the client expects its id, model and thinking level. */
  async handshake(): Promise<{ serverInfo: EdnMap }> {
    try {
      const id = await this.ensureFocus();
      const view = await (await this.deps.sessions.open(id, this.peer.principal)).describe();
      const model = modelParts(view.model);
      return {
        serverInfo: {
          'protocol-version': PROTOCOL_VERSION,
          features: SERVER_FEATURES,
          'session-id': id,
          'model-provider': model.provider,
          'model-id': model.model,
          'thinking-level': view.thinking_level,
        },
      };
    } catch (err) {
      throw toEdnError(err, this.deps.log, { op: 'handshake' });
    } finally {
      // On the next turn of the event loop: after the wire layer has written the handshake's answer.
      setImmediate(() => {
        const early = this.beforeHandshake ?? [];
        this.beforeHandshake = undefined;
        for (const [topic, data, id] of early) this.emit(topic, data, id);
      });
    }
  }

  async request(req: EdnRequest): Promise<EdnMap> {
    const handler = Object.hasOwn(this.ops, req.op) ? this.ops[req.op] : undefined;
    if (!handler) {
      throw new EdnOpError(EdnErrorCode.opNotSupported, `unsupported op: ${req.op}`, { 'supported-ops': ['handshake', ...Object.keys(this.ops)].sort() });
    }
    // A key the op does not take is refused before anything runs (docs/edn.md, "Params").
    checkOpParams(req.op, req.params);
    const ctx = this.context(req);
    try {
      return await handler(ctx);
    } catch (err) {
      throw toEdnError(err, this.deps.log, { op: req.op, ...(this.focusId ? { session: this.focusId } : {}) });
    }
  }

  close(): void {
    this.closed = true;
    this.feed?.stop();
    this.feed = undefined;
  }

  private emit(topic: string, data: EdnMap, id?: string): void {
    if (this.closed || !this.topics.wants(topic)) return;
    // Only the focus session's events reach the client (it drops others once it knows its session).
    const about = data['session-id'];
    if (typeof about === 'string' && this.focusId !== undefined && about !== this.focusId) return;
    if (topic === 'ui/dialog-requested' && typeof data['dialog-id'] === 'string' && typeof data['session-id'] === 'string') this.dialogs.set(data['dialog-id'], data['session-id']);
    this.out.event(topic, data, id);
  }

  private facts(sessionId: string): SessionFacts {
    return new SessionFacts(this.deps.sessions, sessionId, this.peer.principal);
  }

  private async ensureFocus(): Promise<string> {
    if (this.focusId) return this.focusId;
    this.focusing ??= (async () => {
      const { sessions } = this.deps;
      const input = { project_path: this.peer.cwd, ...(this.peer.principal ? { owner: this.peer.principal } : {}) };
      // A `--session-id` is the client's own name: scoped per principal when there is one (as on every transport).
      const named = this.peer.sessionId;
      const id = named ? (await sessions.ensure(await sessions.clientSessionId(named, this.peer.principal), input)).session.id : (await sessions.create(input)).session_id;
      // Another request may have moved the focus meanwhile (switch_session before the first focus was read).
      if (!this.focusId) await this.openFeed(id, { rehydrate: false });
      return this.focusId ?? id;
    })();
    try {
      return await this.focusing;
    } catch (err) {
      this.focusing = undefined;
      throw err;
    }
  }

  /**
   * Moves the focus: stops the old feed, opens the new session's events from its running turn's start
   * before reading its transcript, so every event is either in the transcript or sent after it, once.
   * With `rehydrate` the transcript goes out as `session/resumed` + `session/rehydrated`, then the
   * snapshots; the feed's events wait until the response is written.
   *
   * With `since` (a client resuming its own stream) the events after that session sequence are
   * replayed as they were, none held back for being in the transcript: the client has everything up
   * to `since`, and gets everything after it. The transcript still comes, as `session/rehydrated`
   * marked `:since` (without `session/resumed`: nothing needs clearing), for a client that lost its view.
   */
  private async openFeed(sessionId: string, opts: { rehydrate: boolean; since?: number; snapshots?: readonly Snapshot[]; requestId?: string }): Promise<void> {
    const { sessions } = this.deps;
    this.feed?.stop();
    this.focusId = sessionId;
    const subscription = await (await sessions.open(sessionId, this.peer.principal)).events(opts.since);
    if (this.closed || this.focusId !== sessionId) {
      subscription.stop();
      return;
    }
    const feed = new FocusFeed(sessionId, subscription, this.sink);
    this.feed?.stop();
    this.feed = feed;
    const release = feed.hold();
    try {
      const facts = this.facts(sessionId);
      const transcript = await facts.transcript();
      if (opts.since === undefined) {
        feed.stream.known(
          transcript.flatMap((i) => (i.message.role === 'assistant' && i.turn !== undefined && i.step !== undefined ? [`${i.turn}:${i.step}`] : [])),
          transcript.flatMap((i) => (i.message.role === 'function_result' ? [i.message.function_call_id] : [])),
        );
      }
      feed.start();
      if (this.feed !== feed) return;
      const id = opts.requestId;
      if (opts.rehydrate) {
        if (opts.since === undefined) this.emit('session/resumed', { 'session-id': sessionId, 'session-file': null, 'message-count': transcript.length }, id);
        const messages = transcript.map((i) => messageToEdn(i.message, i.entry_id));
        this.emit('session/rehydrated', { 'session-id': sessionId, messages, 'tool-calls': {}, 'tool-order': [], ...(opts.since !== undefined ? { since: opts.since } : {}) }, id);
      }
      if (opts.snapshots?.length) await this.sendSnapshots(facts, opts.snapshots, id, () => this.feed === feed);
    } finally {
      release();
    }
  }

  private async sendSnapshots(facts: SessionFacts, which: readonly Snapshot[], id: string | undefined, current: () => boolean = () => true): Promise<void> {
    const build = { session: sessionUpdatedSnapshot, footer: footerSnapshot, context: contextSnapshot };
    const topic = { session: 'session/updated', footer: 'footer/updated', context: 'context/updated' };
    const payloads = await Promise.all(which.map((w) => build[w](facts)));
    if (!current()) return;
    which.forEach((w, i) => this.emit(topic[w], payloads[i]!, id));
  }

  private context(req: EdnRequest): OpContext {
    const { sessions, log } = this.deps;
    const opened = new Map<string, Promise<SessionRef>>();
    const session = (sessionId: string) => {
      let got = opened.get(sessionId);
      if (!got) opened.set(sessionId, (got = sessions.open(sessionId, this.peer.principal)));
      return got;
    };
    return {
      req,
      params: req.params,
      sessions,
      jobs: this.deps.jobs,
      log,
      peer: this.peer,
      principal: this.peer.principal,
      topics: this.topics,
      dialogs: this.dialogs,
      actions: this.actions,
      session,
      target: async () => {
        const named = optText(req.params, 'session-id');
        if (named === undefined) return this.ensureFocus();
        await session(named);
        return named;
      },
      focus: () => this.ensureFocus(),
      facts: (sessionId) => this.facts(sessionId),
      emit: (topic, data) => this.emit(topic, data, req.id),
      snapshots: (sessionId, which) => this.sendSnapshots(this.facts(sessionId), which, req.id),
      navigate: async (sessionId, since) => {
        await session(sessionId);
        await this.openFeed(sessionId, { rehydrate: true, snapshots: ['session', 'footer', 'context'], requestId: req.id, ...(since !== undefined ? { since } : {}) });
      },
      refocus: async (sessionId) => {
        await session(sessionId);
        await this.openFeed(sessionId, { rehydrate: false, requestId: req.id });
      },
      feedOf: (sessionId) => (this.feed?.sessionId === sessionId ? this.feed : undefined),
      holdEvents: (sessionId) => (this.feed?.sessionId === sessionId ? this.feed.hold() : () => undefined),
    };
  }
}
