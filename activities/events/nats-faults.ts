/**
 * How a failed NATS call is read. nats.js reports everything as a `NatsError` with a string `code`;
 * JetStream API errors also carry `api_error` ({code, err_code, description}). These are the faults
 * of the infrastructure (a server restarting, a connection lost), which are waited out, as opposed to a
 * request the server refuses for good.
 */
interface NatsLikeError {
  code?: unknown;
  api_error?: { code?: unknown };
}

const CONNECTION_CODES = new Set(['TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_DRAINING', 'CONNECTION_REFUSED', 'CONNECTION_TIMEOUT', 'DISCONNECT']);

/** The connection is gone or silent: whatever was sent on it may or may not have arrived. */
export function isConnectionLoss(err: unknown): boolean {
  const code = (err as NatsLikeError | undefined)?.code;
  return typeof code === 'string' && CONNECTION_CODES.has(code);
}

/**
 * The server is there but cannot take the message yet: no JetStream responder (just restarted, the
 * stream still being recovered) or a JetStream 5xx. Nothing was stored; sending again later is right.
 */
export function isNotReady(err: unknown): boolean {
  const e = err as NatsLikeError | undefined;
  if (e?.code === '503') return true;
  const api = e?.api_error?.code;
  return typeof api === 'number' && api >= 500;
}

/** Any fault worth waiting out rather than reporting. */
export function isNatsUnavailable(err: unknown): boolean {
  return isConnectionLoss(err) || isNotReady(err);
}
