const NEWLINE = 0x0a;

export interface LineSink {
  /** One complete line, without its `\n` (and without a trailing `\r`), decoded as UTF-8. */
  line(text: string): void;
  /** A line that is not valid UTF-8 (binary garbage). */
  invalidUtf8(): void;
  /** A line passed `maxBytes`; what is left of it up to the next `\n` is dropped unread. */
  oversize(maxBytes: number): void;
}

/**
 * Cuts a byte stream into `\n`-terminated lines (docs/edn.md framing) while holding at most
 * `maxBytes` of an unfinished line: once a line passes the limit it is reported once and the rest
 * of it is skipped as it arrives, so a client cannot make the server buffer without bound. Splitting
 * on the byte 0x0A is safe for UTF-8, where that byte never occurs inside a multi-byte character.
 */
export class LineFramer {
  private parts: Buffer[] = [];
  private held = 0;
  private skipping = false;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });

  constructor(
    private readonly maxBytes: number,
    private readonly sink: LineSink,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl === -1) break;
      if (this.skipping) {
        this.skipping = false;
      } else {
        this.take(chunk.subarray(start, nl));
        if (!this.skipping) this.emit();
        this.skipping = false;
      }
      this.parts = [];
      this.held = 0;
      start = nl + 1;
    }
    if (!this.skipping && start < chunk.length) this.take(chunk.subarray(start));
  }

  /** The stream ended: a last line without its `\n` still counts (a client may close right after writing). */
  end(): void {
    if (!this.skipping && this.held > 0) this.emit();
    this.parts = [];
    this.held = 0;
    this.skipping = false;
  }

  private take(bytes: Buffer): void {
    if (this.held + bytes.length > this.maxBytes) {
      this.parts = [];
      this.held = 0;
      this.skipping = true;
      this.sink.oversize(this.maxBytes);
      return;
    }
    if (bytes.length === 0) return;
    // Copied: the caller may reuse its buffer once push returns.
    this.parts.push(Buffer.from(bytes));
    this.held += bytes.length;
  }

  private emit(): void {
    let bytes = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.held);
    if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
    let text: string;
    try {
      text = this.decoder.decode(bytes);
    } catch {
      this.sink.invalidUtf8();
      return;
    }
    this.sink.line(text);
  }
}
