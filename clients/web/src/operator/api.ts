import type { z } from 'zod';
import type { turnSchema } from '../../../../contracts/http-replies';
import type { OperatorOverview } from '../../../../contracts/operator';
import { ApiClient } from '../../../core/api-client';
import { tokenStore } from '../token';

/**
 * The operator view's calls (docs/operator.md): the running turns (`GET /api/turns`), the cluster's
 * history and failures (`GET /api/operator`) and a turn's cancellation, against the origin the page was
 * loaded from, with the tab's token (token.ts, shared with the chat page) when one was given.
 */

/**
 * A running turn as `GET /api/turns` lists it. The model, tokens, retry attempt and Temporal link are
 * read as optional: a gateway older than them lists turns without them, and the table shows a dash.
 */
export type Job = z.infer<typeof turnSchema> & {
  model?: string;
  tokens?: { input: number; output: number };
  retry_attempt?: number;
  workflow_url?: string | null;
};

export type { OperatorOverview };

/** The operator view's client: same origin, the tab's token; a failure is an ApiError (status 0: no answer). */
const gateway = new ApiClient({ baseUrl: '', token: () => tokenStore.get() });

export const operatorApi = {
  jobs: () => gateway.call<{ turns: Job[] }>('GET', '/api/turns').then((r) => r.turns),
  /** With `since` (the last point's `at`), only the newer points. */
  overview: (since?: number) => gateway.call<OperatorOverview>('GET', since === undefined ? '/api/operator' : `/api/operator?since=${since}`),
  cancel: (jobId: string) => gateway.call<{ status: 'cancelled' | 'not_running' }>('POST', `/api/turns/${encodeURIComponent(jobId)}/cancel`, {}),
};
