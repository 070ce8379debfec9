import { nowMs } from '../stats';

/** One answer the load saw: which kind of call, how long it took, and its HTTP status (0: no answer). */
export interface Sample {
  kind: 'get' | 'list' | 'patch' | 'prompt';
  ms: number;
  status: number;
  at: number;
  /** For a 5xx or a missing answer: the gateway's error body, or why no answer came. */
  error?: unknown;
}

/** Longer than any answer the gateway may take (a command is answered within 60 s, docs/http.md). */
const CALL_TIMEOUT_MS = 75_000;

/** Calls the gateway and records the sample; a network error or a timeout is status 0 ("missing"). */
export async function timedCall(samples: Sample[], kind: Sample['kind'], base: string, method: string, route: string, body?: unknown): Promise<{ status: number; body: { turn_id?: string } & Record<string, unknown> }> {
  const started = nowMs();
  let status = 0;
  let parsed: { turn_id?: string } & Record<string, unknown> = {};
  let error: unknown;
  try {
    const res = await fetch(`${base}${route}`, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    status = res.status;
    const text = await res.text();
    if (text) parsed = JSON.parse(text) as typeof parsed;
    if (status >= 500) error = parsed;
  } catch (err) {
    error = { thrown: err instanceof Error ? `${err.name}: ${err.message}` : String(err), status };
  }
  samples.push({ kind, ms: nowMs() - started, status, at: Date.now(), ...(status >= 500 || status === 0 ? { error: { route: `${method} ${route}`, ...(error as object) } } : {}) });
  return { status, body: parsed };
}
