import { createHmac } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { NOTIFY_HEADERS, NOTIFY_REFUSED_TYPE, type JobNotifyEvent } from '../../contracts/job-notify';

export interface DeliverJobNotificationInput {
  url: string;
  /** The worker's environment variable holding the secret (never the secret itself). */
  secret_env?: string;
  event: JobNotifyEvent;
  delivery_id: string;
  /** Sent as JSON; these exact bytes are signed. */
  payload: unknown;
}

export interface DeliveredNotification {
  delivered_at: string;
  attempts: number;
  status_code: number;
}

export interface NotifyDeps {
  env: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
  now?: () => Date;
  /** One attempt's limit; the receiver's slowness is then retried like its failure. */
  attemptTimeoutMs?: number;
}

/** `sha256=<hex>`: HMAC-SHA256 of the exact body bytes with the secret (docs/jobs.md shows a receiver's check). */
export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/**
 * POSTs one notification. Retried by Temporal (the workflow's retry policy) for network failures,
 * timeouts, 408, 429 and 5xx; any other 4xx is the receiver's final word and fails for good. The
 * attempt number rides in a failure's details so the workflow can report how many were made.
 */
export function createDeliverJobNotification(deps: NotifyDeps) {
  const doFetch = deps.fetch ?? fetch;
  const now = deps.now ?? (() => new Date());
  return async function deliverJobNotification(input: DeliverJobNotificationInput): Promise<DeliveredNotification> {
    const attempt = Context.current().info.attempt;
    const fail = (message: string, retryable: boolean) =>
      retryable ? ApplicationFailure.retryable(message, 'JobNotificationFailed', { attempt }) : ApplicationFailure.create({ message, type: NOTIFY_REFUSED_TYPE, nonRetryable: true, details: [{ attempt }] });
    let secret: string | undefined;
    if (input.secret_env) {
      secret = deps.env[input.secret_env];
      if (!secret) throw fail(`the worker has no ${input.secret_env} (the notification’s secret) set`, false);
    }
    const body = JSON.stringify(input.payload);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'strand-job-notify',
      [NOTIFY_HEADERS.event]: input.event,
      [NOTIFY_HEADERS.delivery]: input.delivery_id,
      [NOTIFY_HEADERS.timestamp]: now().toISOString(),
      ...(secret ? { [NOTIFY_HEADERS.signature]: signBody(secret, body) } : {}),
    };
    let status: number;
    try {
      // A redirect is not followed: the signed body goes only where the spec says.
      const res = await doFetch(input.url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(deps.attemptTimeoutMs ?? 30_000) });
      status = res.status;
      await res.body?.cancel().catch(() => undefined);
    } catch (err) {
      throw fail(`POST ${input.url} failed: ${err instanceof Error ? err.message : String(err)}`, true);
    }
    if (status >= 200 && status < 300) return { delivered_at: now().toISOString(), attempts: attempt, status_code: status };
    const retryable = status === 408 || status === 429 || status >= 500;
    throw fail(`POST ${input.url} answered ${status}`, retryable);
  };
}
