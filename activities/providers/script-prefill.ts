import { ProviderError } from './types';

/**
 * The scripted provider's side of a prefill: a retried step hands it the text its earlier attempts
 * published, and the script goes on after it. The prefill must be the start of the step's text
 * (what the script streamed before); anything else is a broken test, reported as a permanent error
 * rather than papered over.
 */
export class ScriptPrefill {
  constructor(
    private rest: string,
    private readonly where: string,
  ) {}

  /** The part of a scripted text delta that comes after the prefill ('' while it is still covered). */
  text(piece: string): string {
    if (!this.rest) return piece;
    if (this.rest.startsWith(piece)) {
      this.rest = this.rest.slice(piece.length);
      return '';
    }
    if (piece.startsWith(this.rest)) {
      const after = piece.slice(this.rest.length);
      this.rest = '';
      return after;
    }
    throw this.mismatch(`"${piece}" does not continue it`);
  }

  /** A tool call comes next: the prefill must be used up (a real model would not call a tool inside text it was given). */
  beforeToolCall(name: string): void {
    if (this.rest) throw this.mismatch(`the script calls ${name} before the prefill's end`);
  }

  /** The step's actions are played: text the script never had is a prefill it cannot continue. */
  end(): void {
    if (this.rest) throw this.mismatch(`the script's text ends before the prefill does`);
  }

  private mismatch(why: string): ProviderError {
    const shown = this.rest.length > 40 ? `${this.rest.slice(0, 40)}…` : this.rest;
    return new ProviderError('permanent', `scripted: the prefill is not the start of ${this.where}'s text (left: "${shown}"; ${why})`, { provider: 'scripted' });
  }
}
