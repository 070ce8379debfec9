import type { HttpEventData } from '../../contracts/http-events';
import { StepTexts } from '../../contracts/step-text';
import { entryIds } from '../../contracts/workflow-ids';
import { resultText, stepOfEntry, type ChatBlock } from './chat-blocks';
import type { PendingApproval } from './gateway-client';
import { compactionText } from './stored-history';
import { retryNotice } from '../../contracts/user-texts';

type Block<K extends ChatBlock['kind']> = Extract<ChatBlock, { kind: K }>;

/** Token and cost sums as the footer shows them. */
export interface UsageSums {
  input: number;
  output: number;
  cost: number;
}

/**
 * The conversation as `strand chat` shows it, built by applying the session's HTTP events in order
 * (docs/http.md, docs/events.md). Pure state, no I/O: the controller feeds it events and replies,
 * the Ink components draw `blocks`. The step-text rule (deltas append, `stream.reset` replaces,
 * stragglers of older attempts are dropped) is the gateway's own StepTexts, so this client applies
 * exactly the rule every other protocol does; `message.done` then sets the stored text.
 *
 * HTTP's tool events carry no turn id, but a session runs one turn at a time and every tool call
 * follows its step's `message.done`: tool events belong to the turn of the last event that named one.
 */
export class ChatView {
  readonly blocks: ChatBlock[] = [];
  /** Blocks before this index are final (finished turns, history): drawn once, never again. */
  settled = 0;
  /** The turn in progress, if any. */
  turn: string | undefined;
  phase = 'idle';
  phaseDetails: string | undefined;
  /** Tool calls waiting for a person, as `GET …/approvals` lists them (oldest first). */
  approvals: PendingApproval[] = [];
  /** Usage of the steps since the totals were last read (`usage` events). */
  usageSinceStats: UsageSums = { input: 0, output: 0, cost: 0 };
  /** Prompts this client sent, by turn id, until their turn shows up. */
  private readonly prompts = new Map<string, string>();
  /** Follow-ups waiting behind the running turn, in order. */
  queued: Array<{ turn: string; text: string }> = [];
  /** Turns seen live whose prompt this client did not send: their text is read from the store. */
  readonly unknownPrompts = new Set<string>();
  private readonly steps = new StepTexts();
  private readonly index = new Map<string, number>();
  private noticeCount = 0;
  /** How a person goes on from a budget pause, in this client's words (the web page says Settings; strand chat /budget). */
  budgetHint = (cap: 'usd' | 'tokens'): string => `${cap === 'usd' ? '/budget <usd> raises the dollar cap' : '/budget tokens <n> raises the token cap'} (/budget off clears both), Esc ends the turn`;
  /** Bumped by every change, so a renderer knows to draw again. */
  version = 0;

  /** Turns read whole from the store when the chat opened: a replay of their events is not shown again. */
  private readonly historyTurns = new Set<string>();
  /** The turn of the last event that named one, shown or not (HTTP's tool events name none). */
  private eventTurn: string | undefined;

  /** Applies one event of the session's stream. */
  apply(data: HttpEventData): void {
    const named = 'turn_id' in data ? data.turn_id : data.type === 'message.done' ? stepOfEntry(data.entry_id)?.turn : undefined;
    if (named !== undefined) this.eventTurn = named;
    const fromHistory = this.eventTurn !== undefined && this.historyTurns.has(this.eventTurn);
    // A turn this client entered before the store gave it whole (its prompt's answer came first) still needs its end.
    const endsEnteredTurn = data.type === 'turn.finished' && this.turn === data.turn_id;
    if (data.type === 'turn.finished') this.eventTurn = undefined;
    if (fromHistory && data.type !== 'agent.state' && !endsEnteredTurn) return;
    // A step the store gave whole: a replay of its deltas would append to the final text.
    if ((data.type === 'message.delta' || data.type === 'thinking.delta' || data.type === 'stream.reset') && this.find<'assistant'>(`${data.turn_id}:${data.step}`)?.done) return;
    this.version++;
    this.applyEvent(data);
    this.settle();
  }

  private applyEvent(data: HttpEventData): void {
    switch (data.type) {
      case 'agent.state':
        this.phase = data.state;
        this.phaseDetails = data.details;
        return;
      case 'message.delta': {
        const block = this.stepBlock(data.turn_id, data.step);
        const out = this.steps.delta(block.key, data.attempt, data.content);
        block.text = out.diverged ? out.text : block.text + out.text;
        return;
      }
      case 'thinking.delta': {
        const block = this.stepBlock(data.turn_id, data.step);
        const thinking = this.steps.thinking(block.key, data.attempt, data.content);
        if (thinking !== undefined) block.thinking = thinking;
        return;
      }
      case 'stream.reset':
        this.steps.reset(this.stepBlock(data.turn_id, data.step).key, data.attempt);
        this.stepBlock(data.turn_id, data.step).thinking = '';
        return;
      case 'message.done': {
        const at = stepOfEntry(data.entry_id);
        if (!at) return;
        const block = this.stepBlock(at.turn, at.step);
        block.text = data.content;
        block.entryId = data.entry_id;
        block.done = true;
        block.stopReason = data.stop_reason;
        return;
      }
      case 'tool.call':
        this.add({ kind: 'tool', key: `tool:${data.tool_call_id}`, ...(this.turn ? { turn: this.turn } : {}), callId: data.tool_call_id, tool: data.tool, params: data.params, output: '' });
        return;
      case 'tool.output': {
        const tool = this.find<'tool'>(`tool:${data.tool_call_id}`);
        if (tool) tool.output += data.content;
        this.dropApproval(data.tool_call_id);
        return;
      }
      case 'tool.result': {
        const tool = this.find<'tool'>(`tool:${data.tool_call_id}`);
        if (tool) {
          tool.outcome = data.status;
          tool.result = resultText(data.result);
        }
        this.dropApproval(data.tool_call_id);
        return;
      }
      case 'usage':
        this.usageSinceStats = { input: this.usageSinceStats.input + data.input, output: this.usageSinceStats.output + data.output, cost: this.usageSinceStats.cost + data.cost_usd };
        return;
      case 'retry':
        this.notice('warning', retryNotice(data));
        return;
      case 'error':
        this.notice('error', `${data.code}: ${data.message}`);
        return;
      case 'turn.finished':
        this.enterTurn(data.turn_id);
        this.add({ kind: 'turn-end', key: `end:${data.turn_id}`, turn: data.turn_id, outcome: data.outcome });
        this.approvals = this.approvals.filter((a) => a.turn_id !== data.turn_id);
        this.steps.forget(`${data.turn_id}:`);
        this.turn = undefined;
        this.settleAll();
        return;
      case 'budget.exceeded': {
        const caps = [data.limit.max_cost_usd !== null ? `$${data.limit.max_cost_usd}` : '', data.limit.max_tokens !== null ? `${data.limit.max_tokens} tokens` : ''].filter(Boolean).join(' · ');
        this.notice('warning', `budget reached: spent $${data.spent_usd} and ${data.spent_tokens} tokens of ${caps}; the turn waits. ${this.budgetHint(data.limit.max_cost_usd !== null ? 'usd' : 'tokens')}`);
        break;
      }
      case 'notice':
        this.notice(data.level, data.message);
        return;
      case 'compaction.finished':
        // An empty summary: there was nothing old enough to summarise, and nothing changed.
        if (data.summary.trim()) this.notice('info', compactionText(data.summary));
        return;
      case 'file.changed':
      case 'compaction.started':
        return;
    }
  }

  /** A prompt this client sent was accepted as `turn` (queued: behind the running turn). */
  prompted(turn: string, text: string, queued: boolean): void {
    this.version++;
    // The answer to the prompt can come after the turn's own events (a fast turn, a slow network, a
    // loaded machine): a turn already shown only gets its prompt's text. Entering it again would
    // leave the view "working" after its end, and listing it as queued would keep it there forever.
    if (this.index.has(`user:${turn}`)) return this.promptText(turn, text);
    if (queued) this.queued.push({ turn, text });
    else this.prompts.set(turn, text);
    if (!queued && this.turn === undefined) this.enterTurn(turn);
  }

  /** The text of a prompt sent elsewhere, read from the store. */
  promptText(turn: string, text: string): void {
    this.unknownPrompts.delete(turn);
    const block = this.find<'user'>(`user:${turn}`);
    if (block) {
      block.text = text;
      this.version++;
    }
    if (this.turn === undefined) this.settleAll();
    else this.settle();
  }

  /** A prompt sent elsewhere that could not be read from the store: said, so the block can settle. */
  promptUnread(turn: string): void {
    if (this.unknownPrompts.has(turn)) this.promptText(turn, '(this prompt, sent from another client, could not be read)');
  }

  notice(level: 'info' | 'warning' | 'error', text: string): void {
    this.add({ kind: 'notice', key: `notice:${++this.noticeCount}`, level, text });
    if (this.turn === undefined) this.settleAll();
  }

  /**
   * Blocks read from the store (stored-history.ts): all final; `liveTurn` is left to its events. Only a
   * turn the store holds to its last answer counts as read whole: the session and its messages are two
   * reads, and a turn that started between them is stored in part — its events (which the stream has
   * from its start) fill in the rest.
   */
  addHistory(blocks: ChatBlock[], liveTurn?: string): void {
    const ended = new Set(blocks.flatMap((b) => (b.kind === 'assistant' && b.done && b.stopReason !== undefined && b.stopReason !== 'function_call' ? [b.turn] : [])));
    for (const block of blocks) {
      this.add(block);
      if ('turn' in block && block.turn && block.turn !== liveTurn && ended.has(block.turn)) this.historyTurns.add(block.turn);
    }
    this.settled = this.blocks.length;
  }

  setApprovals(approvals: PendingApproval[]): void {
    this.approvals = approvals;
    this.version++;
  }

  /** A decision this client sent: the call no longer waits (the gateway's events confirm it). */
  dropApproval(toolCallId: string): void {
    if (!this.approvals.some((a) => a.tool_call_id === toolCallId)) return;
    this.approvals = this.approvals.filter((a) => a.tool_call_id !== toolCallId);
    this.version++;
  }

  statsRead(): void {
    this.usageSinceStats = { input: 0, output: 0, cost: 0 };
    this.version++;
  }

  /**
   * Moves the settled mark over blocks of the running turn that can no longer change (its prompt, a
   * stored step, a tool with its result): only the part still changing is redrawn, so a long turn does
   * not outgrow the terminal.
   */
  private settle(): void {
    const final = (b: ChatBlock) => (b.kind === 'assistant' ? b.done : b.kind === 'tool' ? b.outcome !== undefined : !this.unread(b));
    while (this.settled < this.blocks.length && final(this.blocks[this.settled]!)) this.settled++;
  }

  /**
   * Settles every block up to the first prompt still being read from the store: a settled block is
   * drawn once (the terminal's scrollback), so a prompt settled before its text came would show
   * empty for good (seen in CI: another client's fast turn ended before its prompt was read).
   */
  private settleAll(): void {
    const unread = this.blocks.findIndex((b, i) => i >= this.settled && this.unread(b));
    this.settled = unread < 0 ? this.blocks.length : unread;
  }

  private unread(block: ChatBlock): boolean {
    return block.kind === 'user' && block.turn !== undefined && this.unknownPrompts.has(block.turn);
  }

  /** The blocks still changing (the turn in progress), after the settled ones. */
  live(): ChatBlock[] {
    return this.blocks.slice(this.settled);
  }

  /** A turn's first event: its prompt goes first (sent here, queued here, or to be read). */
  private enterTurn(turn: string): void {
    if (this.turn === turn) return;
    this.turn = turn;
    if (this.index.has(`user:${turn}`)) return;
    const queued = this.queued.findIndex((q) => q.turn === turn);
    let text = this.prompts.get(turn);
    if (queued >= 0) text = this.queued.splice(queued, 1)[0]!.text;
    this.prompts.delete(turn);
    if (text === undefined) this.unknownPrompts.add(turn);
    this.add({ kind: 'user', key: `user:${turn}`, turn, text: text ?? '', entryId: entryIds.user(turn) });
  }

  private stepBlock(turn: string, step: number): Block<'assistant'> {
    this.enterTurn(turn);
    const key = `${turn}:${step}`;
    const found = this.find<'assistant'>(key);
    if (found) return found;
    const block: Block<'assistant'> = { kind: 'assistant', key, turn, step, text: '', thinking: '', done: false };
    this.add(block);
    return block;
  }

  private add(block: ChatBlock): void {
    const at = this.index.get(block.key);
    if (at !== undefined) this.blocks[at] = block;
    else {
      this.index.set(block.key, this.blocks.length);
      this.blocks.push(block);
    }
    this.version++;
  }

  private find<K extends ChatBlock['kind']>(key: string): Block<K> | undefined {
    const at = this.index.get(key);
    return at === undefined ? undefined : (this.blocks[at] as Block<K>);
  }
}
