import { randomUUID } from 'node:crypto';
import type { HttpEventData } from '../../contracts/http-events';
import { StepTexts, RETRIED_DIFFERENTLY } from '../../contracts/step-text';
import { stepOfEntry } from './chat-blocks';
import { followEvents, type FollowedStream } from './event-stream';
import type { GatewayAddress } from './gateway-address';
import { GatewayClient } from './gateway-client';
import { openSession, type SessionWish } from './session-choice';
import { toolTitle } from './tool-display';
import { retryNotice } from '../../contracts/user-texts';

export interface PipeChatOptions {
  address: GatewayAddress;
  cwd: string;
  prompt: string;
  session: SessionWish;
  /** Approve every tool call that asks; without it every one is rejected. */
  yes: boolean;
  /** The answer (stdout). */
  write(text: string): void;
  /** Everything else: tools, notices, errors (stderr). */
  note(line: string): void;
  /** Aborting it interrupts the turn (Ctrl-C). */
  signal?: AbortSignal;
}

/** Exit codes by the turn's outcome (docs/chat.md). */
const PIPE_EXIT = { done: 0, error: 1, aborted: 3 } as const;

const REFUSED = 'strand chat without a terminal refuses tool calls that need approval (run it with --yes to allow them)';
const LIVE_TIMEOUT_MS = 60_000;

/**
 * `strand chat -p "…"` (or a prompt on stdin): one turn, its answer printed as plain text as it
 * streams, for scripts and CI. The session's events are followed before the prompt is sent, so no
 * event of the turn can be missed, and across gateway restarts (event-stream.ts resumes with its
 * cursor). The prompt is queued behind a turn already running. Text that was printed cannot be taken
 * back, so the step-text rule is applied as WebSocket and EDN clients get it (StepTexts): only what
 * extends the printed text is written, and a retried step that says something else is announced.
 */
export async function runPipeChat(options: PipeChatOptions): Promise<number> {
  const client = new GatewayClient(options.address);
  const { id: sessionId, created } = await openSession(client, options.cwd, options.session);
  options.note(`[strand] session ${sessionId}${created ? ' (new)' : ''}`);

  const steps = new StepTexts();
  /** What was printed of each step, as StepTexts says the reader sees it. */
  const shown = new Map<string, string>();
  const decided = new Set<string>();
  let ourTurn: string | undefined;
  let currentTurn: string | undefined;
  let printedKey: string | undefined;
  let endsWithNewline = true;
  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => (finish = resolve));
  let live!: () => void;
  const isLive = new Promise<void>((resolve) => (live = resolve));
  const early: HttpEventData[] = [];

  const print = (key: string, text: string) => {
    if (!text) return;
    if (printedKey !== undefined && printedKey !== key) options.write(endsWithNewline ? '\n' : '\n\n');
    printedKey = key;
    options.write(text);
    endsWithNewline = text.endsWith('\n');
  };
  const decide = (toolCallId: string, tool: string) => {
    if (decided.has(toolCallId)) return;
    decided.add(toolCallId);
    options.note(`[tool] ${options.yes ? 'approved' : 'refused'}: ${tool}`);
    const call = options.yes ? client.approve(sessionId, toolCallId, false) : client.reject(sessionId, toolCallId, REFUSED);
    call.catch((err: Error) => options.note(`[strand] could not answer the approval of ${tool}: ${err.message}`));
  };
  const reviewApprovals = () =>
    client
      .approvals(sessionId)
      .then((list) => list.filter((a) => a.turn_id === ourTurn).forEach((a) => decide(a.tool_call_id, a.tool)))
      .catch(() => undefined);

  const onEvent = (data: HttpEventData) => {
    if (ourTurn === undefined) return void early.push(data);
    const named = 'turn_id' in data ? data.turn_id : data.type === 'message.done' ? stepOfEntry(data.entry_id)?.turn : undefined;
    if (named !== undefined) currentTurn = named;
    if (currentTurn !== ourTurn) {
      // The session runs its turns one after another: once the one before ends, ours is next (an
      // `error` before any text names no turn, and must not be lost).
      if (data.type === 'turn.finished') currentTurn = ourTurn;
      return;
    }
    switch (data.type) {
      case 'message.delta': {
        const key = `${data.step}`;
        const out = steps.delta(key, data.attempt, data.content);
        if (out.diverged) options.note(`[strand] ${RETRIED_DIFFERENTLY}`);
        shown.set(key, out.diverged ? out.text : (shown.get(key) ?? '') + out.text);
        print(key, out.diverged ? `\n${out.text}` : out.text);
        return;
      }
      case 'stream.reset':
        return steps.reset(`${data.step}`, data.attempt);
      case 'message.done': {
        // The stored text is authoritative: print what the stream did not (a prefix was shown) or say it differs.
        const key = `${stepOfEntry(data.entry_id)?.step ?? ''}`;
        if (steps.shows(key, data.content)) return;
        const before = shown.get(key) ?? '';
        shown.set(key, data.content);
        if (data.content.startsWith(before)) return print(key, data.content.slice(before.length));
        options.note(`[strand] ${RETRIED_DIFFERENTLY}`);
        return print(key, `\n${data.content}`);
      }
      case 'tool.call':
        options.note(`[tool] ${toolTitle(data.tool, data.params)}`);
        if (data.requires_approval) decide(data.tool_call_id, data.tool);
        return;
      case 'agent.state':
        if (data.state === 'waiting_approval') void reviewApprovals();
        return;
      case 'tool.result':
        if (data.status !== 'success') options.note(`[tool] ${data.status}: ${typeof data.result === 'string' ? data.result.split('\n')[0] : ''}`);
        return;
      case 'retry':
        return options.note(`[strand] ${retryNotice(data)}`);
      case 'error':
        return options.note(`[strand] ${data.code}: ${data.message}`);
      case 'turn.finished':
        if (!endsWithNewline) options.write('\n');
        return finish(PIPE_EXIT[data.outcome]);
    }
  };

  const stream: FollowedStream = followEvents(client, sessionId, {
    onEvent: (_seq, data) => onEvent(data),
    onStatus: (s) => {
      if (s.kind === 'live') live();
      if (s.kind === 'reconnecting') options.note(`[strand] the event stream dropped (${s.reason}); reconnecting`);
    },
    onFatal: (message) => {
      options.note(`[strand] ${message}`);
      finish(PIPE_EXIT.error);
    },
  });
  try {
    await Promise.race([isLive, new Promise((_, reject) => setTimeout(() => reject(new Error(`the event stream of ${sessionId} did not open within ${LIVE_TIMEOUT_MS / 1000} s`)), LIVE_TIMEOUT_MS).unref())]);
    const accepted = await client.prompt(sessionId, options.prompt, randomUUID(), true);
    if (accepted.queued) options.note(`[strand] queued behind the running turn (position ${accepted.queue_position ?? '?'})`);
    ourTurn = accepted.turn_id;
    if (!accepted.queued) currentTurn = ourTurn;
    for (const data of early.splice(0)) onEvent(data);
    options.signal?.addEventListener('abort', () => void client.interrupt(sessionId).catch(() => undefined), { once: true });
    return await finished;
  } finally {
    stream.close();
  }
}
