import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Collects a command's output for the model: the first and last `capBytes / 2` bytes are kept in
 * memory (the start shows what ran, the end shows how it finished), and everything is written to a
 * spill file so a cut result stays retrievable. The spill file is removed when the output fit.
 */
export class OutputSink {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;
  private spill: fs.WriteStream | undefined;
  private spillError: string | undefined;
  readonly spillPath: string;
  private readonly headCap: number;
  private readonly tailCap: number;

  constructor(
    spillDir: string,
    private readonly capBytes: number,
    label: string,
    now: () => number,
  ) {
    this.headCap = Math.floor(capBytes / 2);
    this.tailCap = capBytes - this.headCap;
    this.spillPath = path.join(spillDir, `${label}-${now()}-${randomUUID().slice(0, 8)}.log`);
    try {
      fs.mkdirSync(spillDir, { recursive: true });
      this.spill = fs.createWriteStream(this.spillPath, { flags: 'w' });
      // A full disk must not fail the tool: the in-memory head and tail still go to the model.
      this.spill.on('error', (err) => {
        this.spillError = err.message;
        this.spill = undefined;
      });
    } catch (err) {
      this.spillError = err instanceof Error ? err.message : String(err);
    }
  }

  get bytes(): number {
    return this.total;
  }

  get truncated(): boolean {
    return this.total > this.capBytes;
  }

  write(chunk: Buffer): void {
    this.total += chunk.length;
    this.spill?.write(chunk);
    let rest = chunk;
    if (this.headBytes < this.headCap) {
      const take = rest.subarray(0, this.headCap - this.headBytes);
      this.head.push(take);
      this.headBytes += take.length;
      rest = rest.subarray(take.length);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.length;
    // Drop whole chunks from the front while the rest still covers the tail budget.
    while (this.tail.length > 1 && this.tailBytes - this.tail[0]!.length >= this.tailCap) {
      this.tailBytes -= this.tail.shift()!.length;
    }
  }

  /**
   * Closes the spill file (kept only when the output did not fit) and returns the text for the
   * result, with a marker where bytes were left out naming the file holding everything.
   */
  async finish(): Promise<{ text: string; spillPath?: string; truncated: boolean; bytes: number }> {
    const spill = this.spill;
    this.spill = undefined;
    if (spill) await new Promise<void>((resolve) => spill.end(() => resolve()));
    const truncated = this.truncated;
    if (!truncated) {
      await fs.promises.rm(this.spillPath, { force: true }).catch(() => undefined);
      return { text: Buffer.concat([...this.head, ...this.tail]).toString('utf8'), truncated: false, bytes: this.total };
    }
    let tail = Buffer.concat(this.tail);
    tail = tail.subarray(Math.max(0, tail.length - this.tailCap));
    const omitted = this.total - this.headBytes - tail.length;
    const kept = this.spillError === undefined ? this.spillPath : undefined;
    const where = kept ? `full output (${this.total} bytes) saved to ${kept}; read it with read_file using offset/limit` : `the full output could not be saved: ${this.spillError}`;
    const text = `${Buffer.concat(this.head).toString('utf8')}\n\n[... ${omitted} bytes omitted; ${where} ...]\n\n${tail.toString('utf8')}`;
    return { text, spillPath: kept, truncated: true, bytes: this.total };
  }
}
