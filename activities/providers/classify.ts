import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { anthropicSdk, openAISdk } from './sdk-modules';
import { ProviderError, type ProviderErrorKind } from './types';

/**
 * Turns whatever an SDK call or its stream threw into a classified {@link ProviderError}, so the
 * turn's retry logic can decide (retry with backoff, compact, or give up) without knowing SDKs.
 * Shared by the Anthropic and OpenAI adapters: both SDKs expose the same error shape (status,
 * headers, parsed body), so one set of rules serves both.
 */

type SdkApiError = InstanceType<typeof Anthropic.APIError> | InstanceType<typeof OpenAI.APIError>;

// Only a failure is classified, so loading both SDKs here (sdk-modules.ts) costs a start nothing.
const isApiError = (err: unknown): err is SdkApiError => err instanceof anthropicSdk().APIError || err instanceof openAISdk().APIError;
const isConnectionError = (err: unknown) => err instanceof anthropicSdk().APIConnectionError || err instanceof openAISdk().APIConnectionError;
const isTimeout = (err: unknown) => err instanceof anthropicSdk().APIConnectionTimeoutError || err instanceof openAISdk().APIConnectionTimeoutError;

/**
 * Rethrows a failure of a provider call: the signal's reason when the caller aborted (an abort is
 * not a provider failure and must reach the caller as itself), else the classified error.
 */
export function rethrowProviderFailure(provider: string, err: unknown, signal: AbortSignal): never {
  if (signal.aborted) throw signal.reason;
  throw classifyProviderError(provider, err);
}

/** The classification of a failed provider call (see ProviderErrorKind for what each kind means). */
export function classifyProviderError(provider: string, err: unknown, now: () => number = Date.now): ProviderError {
  if (err instanceof ProviderError) return err;
  if (isTimeout(err)) return new ProviderError('transient', `${provider}: the request timed out`, { provider, cause: err });
  if (isConnectionError(err)) {
    const cause = (err as Error).cause instanceof Error ? `: ${((err as Error).cause as Error).message}` : '';
    return new ProviderError('transient', `${provider}: connection error${cause}`, { provider, cause: err });
  }
  if (isApiError(err)) return classifyApiError(provider, err, now);
  if (err instanceof SyntaxError) {
    return new ProviderError('transient', `${provider}: malformed stream event (${err.message})`, { provider, cause: err });
  }
  // Anything else escaped the SDK's body read: the connection dropped mid-stream (undici's
  // "terminated"), a socket reset, or an abort we did not ask for. Worth another attempt.
  const message = err instanceof Error ? err.message + (err.cause instanceof Error ? ` (${err.cause.message})` : '') : String(err);
  return new ProviderError('transient', `${provider}: the stream broke off: ${message}`, { provider, cause: err });
}

function classifyApiError(provider: string, err: SdkApiError, now: () => number): ProviderError {
  const status = err.status;
  const { type, code, message } = errorBody(err);
  const retryAfterMs = err.headers ? retryAfterMsOf(err.headers, now) : undefined;
  const kind = kindOf(status, type, code, message);
  const label = [status !== undefined ? `HTTP ${status}` : 'stream error', type ?? code].filter(Boolean).join(' ');
  return new ProviderError(kind, `${provider}: ${label}: ${message}`, {
    provider,
    ...(status !== undefined ? { status } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    cause: err,
  });
}

/** The provider's own words: Anthropic's body is `{type:'error', error:{type, message}}`, OpenAI's error is `{message, type, code}`. */
function errorBody(err: SdkApiError): { type?: string; code?: string; message: string } {
  const raw = (err.error ?? {}) as { type?: unknown; code?: unknown; message?: unknown; error?: { type?: unknown; message?: unknown } };
  const inner = raw.error && typeof raw.error === 'object' ? raw.error : raw;
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const type = str(inner.type) ?? str((err as { type?: unknown }).type);
  const code = str(raw.code) ?? str((err as { code?: unknown }).code);
  // A proxy's HTML error page can be long; the start says enough.
  const message = (str(inner.message) ?? err.message).slice(0, 500);
  return { type: type === 'error' ? undefined : type, code, message };
}

const OVERFLOW = /prompt is too long|context[_ ]length|context window|context limit|maximum context|too many tokens|exceeds? the context/i;

function kindOf(status: number | undefined, type: string | undefined, code: string | undefined, message: string): ProviderErrorKind {
  if (status === 529 || type === 'overloaded_error' || (status === 503 && /overload/i.test(message))) return 'overloaded';
  if (status === 429 || type === 'rate_limit_error' || code === 'rate_limit_exceeded') return 'rate_limited';
  if (status === 401 || status === 403 || type === 'authentication_error' || type === 'permission_error') return 'auth';
  if (code === 'context_length_exceeded' || ((status === undefined || status === 400 || status === 413) && OVERFLOW.test(message))) return 'context_overflow';
  if (status === undefined) return type === 'invalid_request_error' ? 'permanent' : 'transient'; // an error event mid-stream
  if (status >= 500 || status === 408) return 'transient';
  return 'permanent';
}

/**
 * How long the provider asked us to wait: `retry-after-ms` (milliseconds), else `retry-after` in
 * seconds or as an HTTP date. Absent or unparseable → undefined (the turn uses its own backoff).
 */
export function retryAfterMsOf(headers: { get(name: string): string | null }, now: () => number = Date.now): number | undefined {
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return Math.round(ms);
  const raw = headers.get('retry-after')?.trim();
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.round(Number(raw) * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now());
}
