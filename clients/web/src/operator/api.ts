import type { z } from 'zod';
import type { jobSchema } from '../../../../contracts/http-replies';
import type { OperatorOverview } from '../../../../contracts/operator';
import { tokenStore } from '../token';

/**
 * The operator view's calls (docs/operator.md): the running turns (`GET /api/jobs`), the cluster's
 * history and failures (`GET /api/operator`) and a job's cancellation, against the origin the page was
 * loaded from, with the tab's token (token.ts, shared with the chat page) when one was given.
 */

/**
 * A running turn as `GET /api/jobs` lists it. The model, tokens, retry attempt and Temporal link are
 * read as optional: a gateway older than them lists jobs without them, and the table shows a dash.
 */
export type Job = z.infer<typeof jobSchema> & {
  model?: string;
  tokens?: { input: number; output: number };
  retry_attempt?: number;
  workflow_url?: string | null;
};

export type { OperatorOverview };

/** A call that did not succeed: status 0 when the gateway did not answer at all. */
export class OperatorApiError extends Error {
  override readonly name = 'OperatorApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function call<T>(method: 'GET' | 'POST', route: string): Promise<T> {
  const token = tokenStore.get();
  let res: Response;
  try {
    res = await fetch(route, {
      method,
      headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(method === 'POST' ? { 'Content-Type': 'application/json' } : {}) },
      ...(method === 'POST' ? { body: '{}' } : {}),
    });
  } catch {
    throw new OperatorApiError(0, 'UNREACHABLE', 'the gateway did not answer');
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    parsed = undefined;
  }
  if (!res.ok || parsed === undefined) {
    const error = (parsed as { error?: { code?: string; message?: string } } | undefined)?.error;
    throw new OperatorApiError(res.status, error?.code ?? `HTTP_${res.status}`, error?.message ?? `${method} ${route} answered ${res.status}`);
  }
  return parsed as T;
}

export const operatorApi = {
  jobs: () => call<{ jobs: Job[] }>('GET', '/api/jobs').then((r) => r.jobs),
  /** With `since` (the last point's `at`), only the newer points. */
  overview: (since?: number) => call<OperatorOverview>('GET', since === undefined ? '/api/operator' : `/api/operator?since=${since}`),
  cancel: (jobId: string) => call<{ status: 'cancelled' | 'not_running' }>('POST', `/api/jobs/${encodeURIComponent(jobId)}/cancel`),
};
