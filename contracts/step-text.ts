/**
 * The one rule for a model step's text, the same on every protocol (docs/events.md, "A retried
 * step and `stream.reset`"):
 *
 * 1. A step's `assistant.delta`s append to its text, in stream order. A step retried after a crash or a
 *    dropped stream normally continues the answer: its deltas (a higher `attempt`) carry only what
 *    follows the text already sent, so they simply append too.
 * 2. When a retried step cannot continue, it first sends `stream.reset {turn_id, step}`: the step's text
 *    so far is void, and the deltas that follow replace it (replace, never append to it).
 * 3. A delta of an older attempt than one already seen for the step (its deltas or its reset) is a
 *    straggler of a given-up attempt: it is dropped.
 *
 * SSE clients apply the rule themselves (`message.delta` carries `step` and `attempt`). WebSocket and
 * EDN clients cannot be told to take text back, so their mappers apply it here and send only what
 * extends what the client shows: after a reset the repeated part of the new text is swallowed, and
 * when the new text says something else the client is told so (`diverged`) and gets the new text; the
 * final message is authoritative.
 */

/** What a client that cannot take text back is told when a reset step's new text differs from what it shows. */
export const RETRIED_DIFFERENTLY = 'the provider step was retried and answered differently: the text below replaces the text above';

/** What a delta adds to the client's text: `diverged` when a reset's new text does not extend what it shows. */
export interface StepTextOut {
  text: string;
  diverged?: true;
}

/** What a client shows of one stream of a step (its text, or its thinking), and a reset's replay of it. */
interface Track {
  /** What the client shows. */
  shown: string;
  /** After a reset: the new text so far, and whether it stopped matching what the client shows. */
  replay?: { text: string; diverged: boolean };
}

interface StepState {
  text: Track;
  /** The newest attempt seen for the step (rule 3). */
  attempt: number;
  /** The thinking text so far (a reset voids it too). */
  thinking: string;
  /** The thinking as a client that cannot take it back shows it (the same rule as the text). */
  thought: Track;
}

/** Extends a track by one delta: what the client is to be sent (rules 1 and 2). */
function extend(track: Track, text: string): StepTextOut {
  const replay = track.replay;
  if (!replay || replay.diverged) {
    if (replay) replay.text += text;
    track.shown += text;
    return { text };
  }
  replay.text += text;
  if (track.shown.startsWith(replay.text)) return { text: '' };
  if (replay.text.startsWith(track.shown)) {
    const tail = replay.text.slice(track.shown.length);
    track.shown = replay.text;
    return { text: tail };
  }
  replay.diverged = true;
  track.shown = replay.text;
  return { text: replay.text, diverged: true };
}

/** Applies the rule per step (keys chosen by the mapper: a step number, or `<turn>:<step>`). */
export class StepTexts {
  private readonly steps = new Map<string, StepState>();

  /** A delta: what to send the client ('' for nothing). */
  delta(key: string, attempt: number, text: string): StepTextOut {
    const step = this.live(key, attempt);
    return step ? extend(step.text, text) : { text: '' };
  }

  /** `stream.reset`: what follows replaces the step's text (and its thinking). */
  reset(key: string, attempt: number): void {
    const step = this.live(key, attempt);
    if (!step) return;
    step.text.replay = { text: '', diverged: false };
    step.thought.replay = { text: '', diverged: false };
    step.thinking = '';
  }

  /** A thinking delta: the step's whole thinking so far, or undefined for a straggler. */
  thinking(key: string, attempt: number, text: string): string | undefined {
    return this.thinkingDelta(key, attempt, text)?.whole;
  }

  /**
   * A thinking delta, for both kinds of client: `whole` is the step's thinking so far (a client that
   * replaces its thinking block), `out` what extends the thinking a client that only appends shows
   * (the text's rule: after a reset the repeated part is swallowed). Undefined for a straggler.
   */
  thinkingDelta(key: string, attempt: number, text: string): { whole: string; out: StepTextOut } | undefined {
    const step = this.live(key, attempt);
    if (!step) return undefined;
    step.thinking += text;
    return { whole: step.thinking, out: extend(step.thought, text) };
  }

  /** Whether the client's text of the step is the final text (`text`): nothing diverged, nothing missing. */
  shows(key: string, text: string): boolean {
    const step = this.steps.get(key);
    return !!step && step.text.shown === text && !step.text.replay?.diverged;
  }

  /** Forgets the steps whose keys start with `prefix` (a finished turn). */
  forget(prefix: string): void {
    for (const key of this.steps.keys()) if (key.startsWith(prefix)) this.steps.delete(key);
  }

  /** The step's state when `attempt` is current (rule 3), else undefined. */
  private live(key: string, attempt: number): StepState | undefined {
    let step = this.steps.get(key);
    if (!step) this.steps.set(key, (step = { text: { shown: '' }, attempt, thinking: '', thought: { shown: '' } }));
    if (attempt < step.attempt) return undefined;
    step.attempt = attempt;
    return step;
  }
}
