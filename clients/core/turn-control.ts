import { PromptReader, type ForkPoint } from './prompt-reader';

/**
 * What both chat clients (`strand chat`, clients/terminal/chat-controller.ts, and the page,
 * clients/web/src/chat-session.ts) do with the turns of the open session, once: send a prompt (a
 * follow-up waits behind a running turn: `?queue=1`, never 409), steer and stop the running turn,
 * answer tool calls waiting for a person, read the approvals a turn waits for and the prompts of turns
 * another client started, and show an action's failure instead of throwing. Each client brings its
 * transport (`calls`), its view model and how it draws and reports; following the turn to its end is
 * the view model's (it applies the events).
 */

/** What the controller reads and changes of the client's view model (clients/terminal/chat-view.ts's ChatView). */
export interface TurnView<Approval> {
  /** The turn running, once its first event came. */
  readonly turn: string | undefined;
  /** The session's phase (`idle` between turns: a turn may be running before its first event). */
  readonly phase: string;
  /** Turns started elsewhere whose prompt is not shown yet. */
  readonly unknownPrompts: ReadonlySet<string>;
  /** A prompt this client sent was accepted as `turn` (queued: behind the running turn). */
  prompted(turn: string, text: string, queued: boolean): void;
  promptText(turn: string, text: string): void;
  promptUnread(turn: string): void;
  setApprovals(approvals: Approval[]): void;
  dropApproval(toolCallId: string): void;
}

/** The open session's calls, over the client's own transport. */
export interface TurnCalls<Approval, Attachment> {
  /** A prompt; while a turn runs it waits as a follow-up (`?queue=1`). */
  prompt(text: string, requestId: string, attachments: Attachment[]): Promise<{ turn_id: string; queued?: boolean }>;
  steer(text: string): Promise<unknown>;
  interrupt(): Promise<unknown>;
  approve(toolCallId: string, always: boolean): Promise<unknown>;
  reject(toolCallId: string, reason: string): Promise<unknown>;
  approvals(): Promise<Approval[]>;
  forkPoints(): Promise<ForkPoint[]>;
}

/** A client's calls on sessions, each naming its session first (both clients' API objects have these). */
export interface SessionTurnApi<Approval> {
  steer(id: string, text: string): Promise<unknown>;
  interrupt(id: string): Promise<unknown>;
  approve(id: string, toolCallId: string, always: boolean): Promise<unknown>;
  /** An empty reason is sent as none. */
  reject(id: string, toolCallId: string, reason: string): Promise<unknown>;
  approvals(id: string): Promise<Approval[]>;
  forkPoints(id: string): Promise<ForkPoint[]>;
}

/** The turn calls on session `id` through `api`, with the client's own prompt (its options differ: queueing, images). */
export function turnCallsOn<Approval, Attachment>(api: SessionTurnApi<Approval>, id: string, prompt: TurnCalls<Approval, Attachment>['prompt']): TurnCalls<Approval, Attachment> {
  return {
    prompt,
    steer: (text) => api.steer(id, text),
    interrupt: () => api.interrupt(id),
    approve: (toolCallId, always) => api.approve(id, toolCallId, always),
    reject: (toolCallId, reason) => api.reject(id, toolCallId, reason),
    approvals: () => api.approvals(id),
    forkPoints: () => api.forkPoints(id),
  };
}

export interface TurnControlOptions<Approval, Attachment, View extends TurnView<Approval>> {
  calls: TurnCalls<Approval, Attachment>;
  /** The view model now: a client replaces it when it reads the conversation anew. */
  view(): View;
  /** Something shown changed. */
  changed(): void;
  /** An action's outcome to show: its failure (`what: message`), or undefined as it starts (the last one is moot). */
  report(problem: string | undefined): void;
  /** A fresh request id (the gateway answers a repeated one with the same turn and starts nothing). */
  requestId(): string;
}

/** Runs `action`; a failure is reported as `what: message`, not thrown (a UI callback has nowhere to throw to). Resolves whether it succeeded. */
export async function attempt(what: string, action: () => Promise<unknown>, report: (problem: string | undefined) => void): Promise<boolean> {
  report(undefined);
  try {
    await action();
    return true;
  } catch (err) {
    report(`${what}: ${(err as Error).message}`);
    return false;
  }
}

/** The turns of one open session (see the file's comment); `close` when the session is left. */
export class TurnControl<Approval, Attachment, View extends TurnView<Approval>> {
  private readonly prompts: PromptReader;

  constructor(private readonly options: TurnControlOptions<Approval, Attachment, View>) {
    const { calls, view, changed } = options;
    this.prompts = new PromptReader({
      forkPoints: () => calls.forkPoints(),
      wanted: (turn) => view().unknownPrompts.has(turn),
      found: (turn, text) => {
        view().promptText(turn, text);
        changed();
      },
      lost: (turn) => {
        view().promptUnread(turn);
        changed();
      },
    });
  }

  /** A turn is running (or about to: the phase says so before its first event). */
  get running(): boolean {
    const view = this.options.view();
    return view.turn !== undefined || view.phase !== 'idle';
  }

  attempt(what: string, action: () => Promise<unknown>): Promise<boolean> {
    return attempt(what, action, this.options.report);
  }

  /**
   * Sends a prompt. While a turn runs it is queued behind it; it shows as queued too when the turn
   * that was running when it was sent is not the one it starts (`accepted` runs after it is shown).
   */
  send(text: string, attachments: Attachment[] = [], accepted?: () => void): Promise<boolean> {
    const running = this.running;
    const { calls, view, changed, requestId } = this.options;
    return this.attempt('the prompt was not sent', async () => {
      const answer = await calls.prompt(text, requestId(), attachments);
      view().prompted(answer.turn_id, text, answer.queued === true || (running && view().turn !== answer.turn_id));
      accepted?.();
      changed();
    });
  }

  /** Text the running turn's next model step reads. */
  steer(text: string, what = 'the steering message was not sent'): Promise<boolean> {
    return this.attempt(what, () => this.options.calls.steer(text));
  }

  /** Interrupts the running turn (answered once it has ended). */
  interrupt(what = 'the turn was not stopped'): Promise<boolean> {
    return this.attempt(what, () => this.options.calls.interrupt());
  }

  approve(toolCallId: string, always: boolean): Promise<boolean> {
    this.options.view().dropApproval(toolCallId);
    this.options.changed();
    return this.attempt('the approval was not sent', () => this.options.calls.approve(toolCallId, always));
  }

  reject(toolCallId: string, reason: string): Promise<boolean> {
    this.options.view().dropApproval(toolCallId);
    this.options.changed();
    return this.attempt('the rejection was not sent', () => this.options.calls.reject(toolCallId, reason.trim()));
  }

  /** Reads the tool calls waiting for a person; a failed read is left to the next state change. */
  async readApprovals(): Promise<void> {
    try {
      const approvals = await this.options.calls.approvals();
      if (this.closed) return;
      this.options.view().setApprovals(approvals);
      this.options.changed();
    } catch {
      // The next state change reads them again.
    }
  }

  /** After the view applied an event: the approvals a turn now waits for, and the prompts of turns started elsewhere. */
  applied(event: { type: string; state?: string }): void {
    if (event.type === 'agent.state' && event.state === 'waiting_approval') void this.readApprovals();
    for (const turn of this.options.view().unknownPrompts) this.prompts.read(turn);
  }

  private closed = false;

  close(): void {
    this.closed = true;
    this.prompts.close();
  }
}
