import { randomUUID } from 'node:crypto';
import { RequestError, type PromptResponse, type RequestPermissionRequest, type RequestPermissionResponse, type SessionUpdate } from '@agentclientprotocol/sdk';
import type { AgentEvent } from '../../../contracts/agent-events';
import type { Logger } from '../../common/logger';
import type { EventSubscription } from '../events/agent-event-reader';
import { ApprovalGate } from '../events/approval-gate';
import { ResponseHold } from '../events/response-hold';
import { TurnStream, type StreamedEvent } from '../events/turn-stream';
import { addUsage, zeroUsage, type UsageTotals } from '../events/usage-totals';
import type { JobService } from '../jobs/job-service';
import type { SessionService } from '../sessions/session-service';
import type { RawPromptImage } from '../sessions/prompt-images';
import { commandOfPrompt, runCommand } from './commands';
import { Permissions, type ApprovalItem } from './permissions';
import { stopReasonOf } from './stop-reason';
import { toAcpUpdates, usageUpdate, type AcpMapFacts } from '../mapping/acp-updates';

/** How much of a running tool's output each `tool_call_update` carries (ACP replaces the row's content). */
const OUTPUT_TAIL_CHARS = 8_192;

/** What a live session needs of the ACP connection. */
export interface AcpClientLink {
  update(sessionId: string, update: SessionUpdate): Promise<void>;
  askPermission(request: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse>;
  /** The client shows `notice` updates. */
  notices: boolean;
}

export interface LiveSessionDeps {
  sessions: SessionService;
  /** Unattended jobs, for `/jobs` and `/job`. */
  jobs: JobService;
  principal: string | undefined;
  log: Logger;
  client: AcpClientLink;
}

interface PendingPrompt {
  turn: string | undefined;
  cancelled: boolean;
  settle(result: PromptResponse | RequestError): void;
}

/**
 * One ACP session served by this process: the strand session's events (from the running turn's
 * start, then live) read through one TurnStream and sent as `session/update`s, the prompt waiting
 * for its turn's end, cancel, and approvals as permission requests. Each update is written before
 * the next event is read, so a client that does not read paces the read instead of filling memory.
 * The turn belongs to the session, not to this process: when the client or the process goes away,
 * the turn runs on in the worker.
 */
export class AcpLiveSession {
  readonly stream = new TurnStream({ outputTailChars: OUTPUT_TAIL_CHARS });
  private readonly facts: AcpMapFacts;
  private readonly permissions: Permissions;
  private readonly gate: ApprovalGate<ApprovalItem>;
  private subscription: EventSubscription | undefined;
  private pending: PendingPrompt | undefined;
  private readonly holds = new ResponseHold();
  private stopped = false;
  private totals: UsageTotals = zeroUsage();
  /** Model and thinking level as the client was last told (a change elsewhere sends `config_option_update`). */
  private shownSettings = '';
  private model: string | undefined;

  constructor(
    private readonly deps: LiveSessionDeps,
    readonly sessionId: string,
    readonly project: string,
    private readonly settingsUpdate: (model: string, thinking: string) => Promise<SessionUpdate>,
  ) {
    const { sessions, principal, log, client } = deps;
    this.facts = { project, notices: client.notices };
    this.permissions = new Permissions({ sessions, sessionId, principal, project, log, ask: (req, signal) => client.askPermission(req, signal) });
    this.gate = new ApprovalGate(async (callId) => (await sessions.open(sessionId, principal)).stillPending(callId));
  }

  /** What the client was told of the session's usage, model and thinking level when it was opened. */
  seed(usage: UsageTotals, model: string, thinking: string): void {
    this.totals = usage;
    this.shownSettings = `${model}|${thinking}`;
  }

  /** The client now shows these settings (it chose them itself). */
  settingsShown(model: string, thinking: string): void {
    this.shownSettings = `${model}|${thinking}`;
  }

  /** Events wait until the returned release is called (a response that must go out first). */
  hold(): () => void {
    return this.holds.hold();
  }

  /** Reads until stopped. */
  start(subscription: EventSubscription): void {
    this.subscription = subscription;
    if (this.stopped) subscription.stop();
    void this.run(subscription);
  }

  stop(): void {
    this.stopped = true;
    this.subscription?.stop();
    this.permissions.close();
    this.pending?.settle({ stopReason: 'cancelled' });
    this.holds.wake();
  }

  /** One prompt: a slash command answered at once, or a turn (queued behind one already running) until it ends. */
  async prompt(text: string, images: readonly RawPromptImage[] = []): Promise<PromptResponse> {
    if (this.pending) throw RequestError.invalidRequest({ sessionId: this.sessionId }, 'a prompt of this session is still running: cancel it first');
    const { sessions, jobs, principal } = this.deps;
    const command = commandOfPrompt(text);
    if (command) {
      const reply = await runCommand(command, { sessions, jobs, sessionId: this.sessionId, principal });
      await this.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: reply } });
      return { stopReason: 'end_turn' };
    }
    let settle: PendingPrompt['settle'] = () => undefined;
    const done = new Promise<PromptResponse>((resolve, reject) => {
      settle = (r) => {
        if (this.pending === prompt) this.pending = undefined;
        if (r instanceof RequestError) reject(r);
        else resolve(r);
      };
    });
    const prompt: PendingPrompt = { turn: undefined, cancelled: false, settle };
    this.pending = prompt;
    // The turn's events wait until the stream knows the turn is this prompt's.
    const release = this.hold();
    try {
      const requestId = randomUUID();
      const accepted = await sessions.prompt(this.sessionId, principal, { text, request_id: requestId, behavior: 'queue' }, images);
      prompt.turn = accepted.turn_id;
      this.stream.attribute(accepted.turn_id, requestId);
      if (prompt.cancelled) {
        this.stream.aborted(accepted.turn_id);
        void this.abortTurn(accepted.turn_id);
      }
    } catch (err) {
      if (this.pending === prompt) this.pending = undefined;
      if (prompt.cancelled) return { stopReason: 'cancelled' };
      throw err;
    } finally {
      release();
    }
    return done;
  }

  /**
   * `session/cancel`: the prompt answers `cancelled` now, and from now on nothing of its turn is
   * sent; the turn is aborted (its partial answer stored as always), or when it still waits behind
   * another turn, aborted as soon as it starts.
   */
  cancel(): void {
    const prompt = this.pending;
    if (!prompt) return;
    prompt.cancelled = true;
    if (prompt.turn) {
      this.stream.silence(prompt.turn);
      this.permissions.turnEnded(prompt.turn);
      void this.abortTurn(prompt.turn);
    } else {
      // The prompt is still on its way to the session: everything is silenced until its turn is known.
      this.stream.abortRequested();
    }
    prompt.settle({ stopReason: 'cancelled' });
  }

  /** The session aborts the turn by its id whether it runs, waits in the queue or is only starting. */
  private async abortTurn(turn: string): Promise<void> {
    const { sessions, principal, log } = this.deps;
    try {
      await (await sessions.open(this.sessionId, principal)).abort(undefined, turn);
    } catch (err) {
      log.warn({ err, session: this.sessionId, turn }, 'could not abort a cancelled turn');
    }
  }

  private async run(subscription: EventSubscription): Promise<void> {
    try {
      for await (const { envelope } of subscription) {
        while (this.holds.held && !this.stopped) await this.holds.whenOpen();
        if (this.stopped) return;
        const read = this.stream.next(envelope);
        if (read) await this.handle(read);
        if (this.stopped) return;
      }
    } catch (err) {
      if (!this.stopped) this.deps.log.error({ err, session: this.sessionId }, 'the ACP event feed stopped');
    }
    if (!this.stopped) this.pending?.settle(RequestError.internalError({ sessionId: this.sessionId }, 'the event stream of the session ended: load the session again'));
  }

  private async handle(read: StreamedEvent): Promise<void> {
    const e = read.event;
    if (e.type === 'session.state') await this.stateChanged(e);
    if (e.type === 'usage') {
      this.totals = addUsage(this.totals, e);
      if (!read.silenced) await this.send(usageUpdate(e, this.totals, this.windowOf()));
    }
    for (const update of toAcpUpdates(read, this.facts)) await this.send(update);
    if (e.type === 'approval.requested' && !read.silenced && !read.known) {
      const item = { callId: e.tool_call_id, tool: e.tool, params: e.params, turn: read.turn };
      if (await this.gate.requested(e.tool_call_id, item)) this.permissions.ask(item);
    }
    if (e.type === 'approval.resolved' || e.type === 'tool.result') this.permissions.settled(e.tool_call_id);
    if (e.type === 'turn.finished') this.turnFinished(e.turn_id);
  }

  private async stateChanged(e: Extract<AgentEvent, { type: 'session.state' }>): Promise<void> {
    const settings = `${e.model}|${e.thinking_level}`;
    if (settings !== this.shownSettings) {
      this.shownSettings = settings;
      this.model = e.model;
      await this.send(await this.settingsUpdate(e.model, e.thinking_level));
    }
    if (e.phase === 'waiting_approval') for (const item of await this.gate.waiting(this.stream.pendingApprovals)) this.permissions.ask(item);
  }

  private windowOf(): number {
    const model = this.model ?? this.shownSettings.split('|')[0] ?? '';
    try {
      return this.deps.sessions.models.resolve(model).entry.context_window;
    } catch {
      return 0;
    }
  }

  private turnFinished(turn: string): void {
    this.permissions.turnEnded(turn);
    const prompt = this.pending;
    if (prompt?.turn !== turn) return;
    prompt.settle(stopReasonOf(this.stream.summary(turn), this.sessionId));
  }

  private async send(update: SessionUpdate): Promise<void> {
    if (this.stopped) return;
    try {
      await this.deps.client.update(this.sessionId, update);
    } catch (err) {
      // The client went away: the feed stops, the session's turn goes on in the worker.
      this.deps.log.debug({ err, session: this.sessionId }, 'an update could not be sent');
      this.stop();
    }
  }
}
