import { entryIds } from '../../contracts/workflow-ids';

/**
 * The prompt of a turn another client started (another tab, Emacs, the terminal, curl), read from the
 * session's fork points (`GET …/fork-points`, the active branch's prompts). No I/O of its own: each
 * client passes its own read.
 */

/** One entry of `GET …/fork-points`: a prompt of the active branch. */
export interface ForkPoint {
  entry_id: string;
  text: string;
}

export interface PromptReaderOptions {
  /** The session's fork points, read with the client's own transport. */
  forkPoints: () => Promise<ForkPoint[]>;
  /** Called once with the text of a turn's prompt. */
  found: (turn: string, text: string) => void;
  /** Whether the prompt is still wanted (the client may have moved on to another session). */
  wanted: (turn: string) => boolean;
  /** Called once when a prompt still wanted was not read in `attempts` reads (the client says so). */
  lost?: (turn: string) => void;
  /** Reads of one prompt before giving up (it is stored as the turn starts; a read may come first). */
  attempts?: number;
  /** Wait before the second read; each later read waits this much longer. */
  delayMs?: number;
}

/**
 * Reads the prompts of turns another client started (another tab, Emacs, the terminal, curl): each
 * turn is read once at a time, and asked again a little later while its prompt is not stored yet.
 */
export class PromptReader {
  private readonly reading = new Set<string>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private closed = false;

  constructor(private readonly options: PromptReaderOptions) {}

  read(turn: string, attempt = 1): void {
    if (this.closed || this.reading.has(turn)) return;
    this.reading.add(turn);
    const { forkPoints, found, wanted, lost, attempts = 10, delayMs = 500 } = this.options;
    const again = () => {
      if (this.closed) return;
      if (attempt >= attempts) return void (wanted(turn) && lost?.(turn));
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.reading.delete(turn);
        if (wanted(turn)) this.read(turn, attempt + 1);
      }, delayMs * attempt);
      // A timer must not keep a terminal client's process alive.
      (timer as { unref?: () => void }).unref?.();
      this.timers.add(timer);
    };
    forkPoints().then((points) => {
      const text = points.find((p) => p.entry_id === entryIds.user(turn))?.text;
      if (text === undefined) return again();
      if (!this.closed && wanted(turn)) found(turn, text);
    }, again);
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
