/**
 * Holds a session's events while a response that must reach the client first is on its way: a
 * request that causes events (an EDN prompt or switch, ACP's `session/load` and prompts) takes a
 * hold and releases it once its response is written. Holds are counted, and each release counts
 * once. What a protocol does meanwhile is its own: the EDN feed keeps what arrives and sends it at
 * `onOpen`, ACP's reader stops reading until `whenOpen` (so a held client paces JetStream reads).
 */
export class ResponseHold {
  private holds = 0;
  private waiters: Array<() => void> = [];

  constructor(
    private readonly opts: {
      /**
       * Let the events go on the event loop's next turn after the release, not within it: a
       * caller that releases just before returning its response gets that response written first.
       */
      deferRelease?: boolean;
      /** Called each time the last hold is released. */
      onOpen?: () => void;
    } = {},
  ) {}

  get held(): boolean {
    return this.holds > 0;
  }

  /** Holds the events until the returned release is called (once; later calls do nothing). */
  hold(): () => void {
    this.holds += 1;
    let released = false;
    const release = () => {
      this.holds -= 1;
      if (this.holds > 0) return;
      this.wake();
      this.opts.onOpen?.();
    };
    return () => {
      if (released) return;
      released = true;
      if (this.opts.deferRelease) setImmediate(release);
      else release();
    };
  }

  /** Resolves once nothing holds the events (at once when nothing does), or when `wake` is called. */
  whenOpen(): Promise<void> {
    if (!this.held) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Lets everyone waiting in `whenOpen` go, held or not (the reader is being stopped and must see it). */
  wake(): void {
    for (const resolve of this.waiters.splice(0)) resolve();
  }
}
