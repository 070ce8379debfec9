import type { TurnOutcome } from '../../contracts/turn-workflow';

/** What a client asked of a turn whose child workflow did not exist yet (queued, or being started). */
export interface TurnIntent {
  abort: boolean;
  interrupt: boolean;
  steering: string[];
}

/** How many ended turns' outcomes the session remembers (an abort's answer reads its turn's). */
const REMEMBERED_OUTCOMES = 20;

/**
 * Abort, interrupt and steer name the turn they mean. A command for a turn whose child is not there
 * yet is recorded here and applied as soon as the child exists (or, for an abort, instead of starting
 * it), so its answer can say what will be true instead of "nothing ran". The outcomes of ended turns
 * let an abort answer whether its turn really ended aborted.
 */
export class TurnIntents {
  readonly #intents = new Map<string, TurnIntent>();
  readonly #outcomes = new Map<string, TurnOutcome>();

  #of(turnId: string): TurnIntent {
    let intent = this.#intents.get(turnId);
    if (!intent) {
      intent = { abort: false, interrupt: false, steering: [] };
      this.#intents.set(turnId, intent);
    }
    return intent;
  }

  abort(turnId: string): void {
    this.#of(turnId).abort = true;
  }

  interrupt(turnId: string): void {
    this.#of(turnId).interrupt = true;
  }

  steer(turnId: string, text: string): void {
    this.#of(turnId).steering.push(text);
  }

  peek(turnId: string): Readonly<TurnIntent> | undefined {
    return this.#intents.get(turnId);
  }

  /** The intent for a turn whose child now exists: handed over once, then forgotten. */
  take(turnId: string): TurnIntent | undefined {
    const intent = this.#intents.get(turnId);
    this.#intents.delete(turnId);
    return intent;
  }

  ended(turnId: string, outcome: TurnOutcome): void {
    this.#intents.delete(turnId);
    this.#outcomes.set(turnId, outcome);
    if (this.#outcomes.size > REMEMBERED_OUTCOMES) this.#outcomes.delete(this.#outcomes.keys().next().value as string);
  }

  outcomeOf(turnId: string): TurnOutcome | undefined {
    return this.#outcomes.get(turnId);
  }
}
