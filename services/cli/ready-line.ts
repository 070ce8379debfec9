/** What `[strand] ready` says about where the stack serves. */
export interface Serving {
  /** Every gateway's HTTP base URL and EDN host:port, first to last. */
  gateways: string[];
  edns: string[];
  temporalUi?: string;
  /** How many workers and stores run. */
  workers: number;
  stores: number;
}

/**
 * The line `strand up` prints once the stack serves: where the gateways listen, where the API docs
 * are (the first thing a newcomer opens), the Temporal UI, how many workers and stores run when
 * anything runs more than once, and how to stop it.
 */
export function readyLine(s: Serving, how: string): string {
  const single = s.gateways.length === 1;
  const where = single ? `gateway ${s.gateways[0]}  ·  API docs ${s.gateways[0]}/api/docs  ·  EDN ${s.edns[0]}` : `gateways ${s.gateways.join(' ')}  ·  API docs ${s.gateways[0]}/api/docs  ·  EDN ${s.edns.join(' ')}`;
  const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  const counts = single && s.workers === 1 && s.stores === 1 ? '' : `  ·  ${plural(s.workers, 'worker')}, ${plural(s.stores, 'store')}`;
  return `[strand] ready — ${where}${counts}  ·  Temporal UI ${s.temporalUi ?? '(off)'}  ·  ${how}`;
}
