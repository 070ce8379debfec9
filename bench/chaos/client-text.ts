/**
 * The assistant text a client of `GET /api/sessions/{id}/events` holds, built only from what the
 * protocol tells it (docs/http.md): `message.delta` appends to the step under way, a
 * `message.done` (entry id `<turn>:s<k>:assistant`) closes step k so the next deltas belong to step
 * k+1, and `stream.reset {turn_id, step}` discards that step's text and makes it the step under way
 * again (a retried provider step streams it anew).
 */
export class ClientText {
  private readonly steps = new Map<string, string[]>();
  private readonly current = new Map<string, number>();

  /** Applies one event (its SSE `event:` name and parsed `data:`); other events change nothing. */
  apply(event: string, data: Record<string, unknown>): void {
    if (event === 'message.delta') {
      const turn = String(data.turn_id);
      const step = this.current.get(turn) ?? 0;
      const texts = this.textsOf(turn);
      texts[step] = (texts[step] ?? '') + String(data.content ?? '');
    } else if (event === 'message.done') {
      const match = /^(.+):s(\d+):assistant$/.exec(String(data.entry_id ?? ''));
      if (!match) return;
      const turn = match[1]!;
      const step = Number(match[2]);
      const texts = this.textsOf(turn);
      texts[step] ??= '';
      this.current.set(turn, step + 1);
    } else if (event === 'stream.reset') {
      const turn = String(data.turn_id);
      const step = Number(data.step);
      this.textsOf(turn)[step] = '';
      this.current.set(turn, step);
    }
  }

  /** The text of each step of `turn` (index = step), '' for a step with no text. */
  texts(turn: string): string[] {
    return Array.from(this.steps.get(turn) ?? [], (t) => t ?? '');
  }

  private textsOf(turn: string): string[] {
    let texts = this.steps.get(turn);
    if (!texts) this.steps.set(turn, (texts = []));
    return texts;
  }
}
