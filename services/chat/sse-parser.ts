/** One server-sent event: its `id:` (absent for frames without one), `event:` name and joined `data:`. */
export interface SseFrame {
  id?: string;
  event: string;
  data: string;
}

/**
 * An incremental text/event-stream parser (the WHATWG rules strand's gateway relies on): lines end
 * with LF, CRLF or CR; a blank line dispatches; `:` lines are comments (keepalives); several `data:`
 * lines join with LF; one space after the colon is dropped. Chunks may split anywhere, even a CRLF.
 */
export class SseParser {
  private buffer = '';
  private frame: { id?: string; event?: string; data: string[] } = { data: [] };

  /** Feeds decoded text; returns the frames it completed. */
  push(text: string): SseFrame[] {
    this.buffer += text;
    const out: SseFrame[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) break;
      // A CR at the very end may be the first half of a CRLF: wait for the next chunk.
      if (match[0] === '\r' && match.index === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const done = this.line(line);
      if (done) out.push(done);
    }
    return out;
  }

  private line(line: string): SseFrame | undefined {
    if (line === '') {
      const { id, event, data } = this.frame;
      this.frame = { data: [] };
      if (data.length === 0) return undefined;
      return { ...(id !== undefined ? { id } : {}), event: event ?? 'message', data: data.join('\n') };
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.frame.data.push(value);
    else if (field === 'event') this.frame.event = value;
    else if (field === 'id' && !value.includes('\0')) this.frame.id = value;
    return undefined;
  }
}
