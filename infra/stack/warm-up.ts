import fs from 'node:fs';

/**
 * The first turn a fresh stack serves is slow (issue 22: a first prompt accepted after 2–4 s, the
 * next ones in ~40 ms): each worker process compiles the workflow runtime, the session and turn
 * workflows and the provider path on its first workflow task, and each gateway its Temporal update
 * path. `bench:first-prompt` shows the worker's first task is most of it. So before the stack says
 * ready it serves a few throwaway turns itself, through every gateway, as a client would: a session
 * on `scripted/echo` (never a paid model, whatever STRAND_DEFAULT_MODEL says), a prompt, its events
 * until turn.finished, then the session deleted. Several at once per gateway, so that each worker's
 * pollers get some (Temporal hands a new workflow's first task to whichever poller waits; nothing
 * lets a client pick the worker).
 *
 * With tokens configured it uses the first one (its principal owns the throwaway sessions). Best
 * effort: a stack that cannot warm up still starts, and the line it reports says why.
 */

const TURN_TIMEOUT_MS = 60_000;
const WARM_UP_PROMPT = 'warm-up turn of `strand up` (this session is deleted when it ends)';

type Client = { base: string; auth: Record<string, string> };

async function call(client: Client, method: string, route: string, body?: unknown, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const res = await fetch(`${client.base}${route}`, {
    method,
    headers: { ...client.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(TURN_TIMEOUT_MS)]) : AbortSignal.timeout(TURN_TIMEOUT_MS),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route} answered ${res.status}: ${text.slice(0, 200)}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

/** Resolves when the session's event stream carries `turn.finished`, with its outcome. */
async function untilTurnFinished(events: Response): Promise<string> {
  if (!events.body) throw new Error('the event stream has no body');
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of events.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    const finished = /^event: turn\.finished\r?\ndata: (.*)$/m.exec(buffer);
    if (finished) return (JSON.parse(finished[1]!) as { outcome: string }).outcome;
  }
  throw new Error('the event stream ended before turn.finished');
}

/** One throwaway turn through the client's gateway; the session is deleted whatever happened. */
async function warmUpTurn(client: Client, projectDir: string, signal: AbortSignal | undefined): Promise<void> {
  const created = await call(client, 'POST', '/api/sessions', { project_path: projectDir, model: 'scripted/echo' }, signal);
  const sid = String(created.session_id);
  const stream = new AbortController();
  try {
    const events = await fetch(`${client.base}/api/sessions/${encodeURIComponent(sid)}/events`, {
      headers: { ...client.auth, Accept: 'text/event-stream' },
      signal: AbortSignal.any([stream.signal, AbortSignal.timeout(TURN_TIMEOUT_MS), ...(signal ? [signal] : [])]),
    });
    if (!events.ok) throw new Error(`GET /api/sessions/${sid}/events answered ${events.status}`);
    const finished = untilTurnFinished(events);
    await call(client, 'POST', `/api/sessions/${encodeURIComponent(sid)}/prompt`, { text: WARM_UP_PROMPT }, signal);
    const outcome = await finished;
    if (outcome !== 'done') throw new Error(`the warm-up turn ended ${outcome}`);
  } finally {
    stream.abort();
    await call(client, 'DELETE', `/api/sessions/${encodeURIComponent(sid)}`).catch(() => undefined);
  }
}

export interface WarmUpOptions {
  /** Every gateway's HTTP base URL. */
  gateways: string[];
  /** How many workers run: each gateway serves twice as many turns at once. */
  workers: number;
  /** A directory for the sessions' project (created; left empty). */
  projectDir: string;
  /** A bearer token the gateways accept, when they have tokens (STRAND_TOKENS or STRAND_TOKENS_FILE). */
  token?: string;
  signal?: AbortSignal;
  /**
   * Waits until services that died are up again. Given, a failed warm-up is tried again after it
   * (twice at most): a gateway or worker killed during the warm-up is restarted by the stack's
   * supervision, and the turns then go through the new one.
   */
  untilSettled?: () => Promise<void>;
}

const ATTEMPTS_WITH_SETTLING = 3;

/** Serves the warm-up turns; resolves with a line saying what was done (or why it was not). */
export async function warmUp(opts: WarmUpOptions): Promise<string> {
  fs.mkdirSync(opts.projectDir, { recursive: true });
  const started = performance.now();
  const perGateway = Math.max(2, 2 * opts.workers);
  const auth: Record<string, string> = opts.token ? { Authorization: `Bearer ${opts.token}` } : {};
  const attempts = opts.untilSettled ? ATTEMPTS_WITH_SETTLING : 1;
  for (let attempt = 1; ; attempt++) {
    try {
      for (const base of opts.gateways) {
        await Promise.all(Array.from({ length: perGateway }, () => warmUpTurn({ base, auth }, opts.projectDir, opts.signal)));
      }
      break;
    } catch (err) {
      if (attempt >= attempts || opts.signal?.aborted) return `warm-up skipped: ${(err as Error).message} (the first prompts may be slow)`;
      await opts.untilSettled?.();
    }
  }
  const n = perGateway * opts.gateways.length;
  return `warmed up with ${n} throwaway turns in ${Math.round(performance.now() - started)} ms`;
}
