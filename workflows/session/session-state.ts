import { ApplicationFailure } from '@temporalio/workflow';
import {
  WorkflowFailureType,
  promptInputSchema,
  turnId,
  type PromptInput,
  type SessionSnapshot,
  type SessionWorkflowInput,
} from '../../contracts/workflow-messages';
import type { AgentPhase } from '../../contracts/agent-events';

/** A prompt accepted by the update handler and waiting for the main loop to start its turn. */
export interface QueuedTurn {
  number: number;
  text: string;
}

/**
 * The session workflow's small runtime state and the rules for changing it. The workflow function
 * owns the loop; this class owns the invariants (one turn at a time, turn numbers never reused).
 */
export class SessionState {
  phase: AgentPhase = 'idle';
  /** True from the moment a prompt is accepted until its turn's final state has been published. */
  busy = false;
  lastTurn: number;
  loaded: boolean;
  activeTurn: string | null = null;
  readonly queue: QueuedTurn[] = [];
  /** Turn numbers whose child workflow has started (the update replies once its turn is here). */
  readonly started = new Set<number>();

  constructor(readonly input: Required<Omit<SessionWorkflowInput, 'last_turn'>> & { last_turn?: number }) {
    this.lastTurn = input.last_turn ?? 0;
    this.loaded = input.last_turn !== undefined;
  }

  /**
   * The update validator: synchronous, throws ApplicationFailure so a rejected prompt never reaches
   * history. A busy session answers SESSION_BUSY.
   */
  validatePrompt(prompt: PromptInput): void {
    const parsed = promptInputSchema.safeParse(prompt);
    if (!parsed.success) {
      throw ApplicationFailure.nonRetryable(parsed.error.issues.map((i) => i.message).join('; '), WorkflowFailureType.INVALID_PROMPT);
    }
    if (this.busy) {
      throw ApplicationFailure.nonRetryable(
        `session ${this.input.session_id} is busy with turn ${this.activeTurn ?? '(starting)'}`,
        WorkflowFailureType.SESSION_BUSY,
      );
    }
  }

  /** Claims the session for a new turn; called synchronously at the top of the update handler. */
  claim(): void {
    this.busy = true;
    this.phase = 'thinking';
  }

  /** Allocates the next turn number and queues the turn for the main loop. */
  enqueue(text: string): QueuedTurn {
    this.lastTurn += 1;
    const turn = { number: this.lastTurn, text };
    this.queue.push(turn);
    return turn;
  }

  /** Marks the session idle again after a turn's last event went out. */
  release(): void {
    this.busy = false;
    this.phase = 'idle';
    this.activeTurn = null;
  }

  snapshot(): SessionSnapshot {
    return {
      session_id: this.input.session_id,
      phase: this.phase,
      model: this.input.model,
      thinking_level: this.input.thinking_level,
      active_turn: this.activeTurn,
      last_turn: this.lastTurn,
      queue_length: this.queue.length,
    };
  }

  turnIdOf(turn: QueuedTurn): string {
    return turnId(turn.number);
  }
}
