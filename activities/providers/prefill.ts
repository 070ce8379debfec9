import type { ProviderChunk } from './types';

/**
 * A prefill as an API that refuses a final assistant message ending in whitespace takes it (Anthropic):
 * the text to send, and the whitespace held back, which clients already have.
 */
export function holdTrailingWhitespace(text: string): { sent: string; held: string } {
  const sent = text.replace(/\s+$/u, '');
  return { sent, held: text.slice(sent.length) };
}

/**
 * Joins a continuation to a prefill whose trailing whitespace was held back from the API. The model
 * usually starts with that whitespace again (" and so on"), which clients already have: it is dropped
 * from the start of the continuation as far as it matches, across deltas. Whatever differs is kept as
 * the model sent it (the answer then holds both: " " then "\n" stays " \n"), and so is a continuation
 * that starts with a word (the held whitespace, already shown, separates it). Matching ends at the
 * first chunk that is not text.
 */
export class ContinuationJoin {
  constructor(private pending: string) {}

  /** The part of a text delta that extends what clients have. */
  take(text: string): string {
    if (!this.pending) return text;
    let i = 0;
    while (i < text.length && i < this.pending.length && text[i] === this.pending[i]) i++;
    if (i === text.length) {
      // The whole delta repeated held whitespace; the next one may repeat the rest.
      this.pending = this.pending.slice(i);
      return '';
    }
    this.pending = '';
    return text.slice(i);
  }

  /** Something other than text came: nothing later can repeat the held whitespace. */
  stop(): void {
    this.pending = '';
  }
}

/** A continuation's chunks with the held whitespace dropped from its start (see {@link ContinuationJoin}). */
export async function* joinContinuation(chunks: AsyncIterable<ProviderChunk>, held: string): AsyncGenerator<ProviderChunk> {
  const join = new ContinuationJoin(held);
  for await (const chunk of chunks) {
    if (chunk.type !== 'text_delta') {
      join.stop();
      yield chunk;
      continue;
    }
    const text = join.take(chunk.text);
    if (text) yield { type: 'text_delta', text };
  }
}
