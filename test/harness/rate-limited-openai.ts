import type { FakeProviderServer, RecordedRequest } from './fake-anthropic-server';
import { startFakeOpenAIServer, type FakeOpenAIReply } from './fake-openai-server';

/**
 * The fake OpenAI server (fake-openai-server.ts) with a provider's request limit: `limit` requests per
 * fixed window of `windowMs` (a minute by default), counted from the first request. Beyond it every
 * request is answered 429 `rate_limit_exceeded` with `retry-after` (whole seconds, rounded up, to the
 * window's end) as OpenAI does, or without it. Counts what it answered, for tests and the bench.
 */
export interface RateLimitedOpenAI {
  server: FakeProviderServer<FakeOpenAIReply>;
  baseURL: string;
  counts: { requests: number; ok: number; refused: number };
  /** The answer of each request, in arrival order. */
  log: Array<{ at: number; status: 200 | 429; key: string | undefined }>;
  close(): Promise<void>;
}

export interface RateLimitedOpenAIOptions {
  limit: number;
  windowMs?: number;
  /** Send `retry-after` with a 429 (default true). */
  retryAfter?: boolean;
  /** The answer to an allowed request (default: a short text). */
  answer?: (request: RecordedRequest) => FakeOpenAIReply;
}

export async function startRateLimitedOpenAI(options: RateLimitedOpenAIOptions): Promise<RateLimitedOpenAI> {
  const windowMs = options.windowMs ?? 60_000;
  const counts = { requests: 0, ok: 0, refused: 0 };
  const log: RateLimitedOpenAI['log'] = [];
  let windowStart: number | undefined;
  let used = 0;
  const respond = (request: RecordedRequest): FakeOpenAIReply => {
    const now = Date.now();
    if (windowStart === undefined || now >= windowStart + windowMs) {
      // Fixed windows on the grid of the first request, as a provider's per-minute counter resets.
      windowStart = windowStart === undefined ? now : windowStart + Math.floor((now - windowStart) / windowMs) * windowMs;
      used = 0;
    }
    counts.requests += 1;
    const key = String(request.headers.authorization ?? '').replace(/^Bearer /, '') || undefined;
    if (used < options.limit) {
      used += 1;
      counts.ok += 1;
      log.push({ at: now, status: 200, key });
      return options.answer?.(request) ?? { content: 'Answered within the limit.' };
    }
    counts.refused += 1;
    log.push({ at: now, status: 429, key });
    const seconds = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
    return {
      error: {
        status: 429,
        type: 'requests',
        code: 'rate_limit_exceeded',
        message: `Rate limit reached: ${options.limit} requests per ${windowMs / 1000} s. Please try again in ${seconds}s.`,
        ...(options.retryAfter === false ? {} : { headers: { 'retry-after': String(seconds) } }),
      },
    };
  };
  const server = await startFakeOpenAIServer({ respond });
  return { server, baseURL: server.baseURL, counts, log, close: () => server.close() };
}
