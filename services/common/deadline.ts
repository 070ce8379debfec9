/**
 * `p`, or a rejection after `ms` (`Error("<what> within <ms> ms")`). What `p` yields after the
 * deadline is handed to `late`, so a consumer or a pull that opened too late can be stopped rather
 * than leak. Used where nats.js would otherwise wait on a JetStream node that died (its own retries
 * back off for up to 30 s).
 */
export function withDeadline<T>(p: Promise<T>, ms: number, what: string, late?: (value: T) => void): Promise<T> {
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.then((v) => {
      if (timedOut) late?.(v);
      return v;
    }),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        reject(new Error(`${what} within ${ms} ms`));
      }, ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
