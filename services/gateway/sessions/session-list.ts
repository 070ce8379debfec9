import type { ModelCatalog } from '../../../contracts/model-catalog';
import type { StoreClient } from '../../../contracts/session-store/client';
import type { SessionMeta } from '../../../contracts/session-store/schemas';
import type { SessionCommands } from '../temporal/session-commands';
import { sessionStats } from './session-stats';
import { listedSessionView } from './session-view';

interface ListDeps {
  store: Pick<StoreClient, 'list' | 'get' | 'messages'>;
  commands: Pick<SessionCommands, 'liveMany'>;
  catalog: ModelCatalog;
  defaultModel: string;
}

type ListQuery = { limit?: number; cursor?: string; status?: SessionMeta['status']; metadata?: Record<string, string> };

/** A page of sessions with their live state; what Temporal could not say is `unknown` with the reason (the list never fails for it). */
export async function listSessions(deps: ListDeps, query: ListQuery) {
  const page = await deps.store.list(query);
  // One visibility query for the page (never N queries); a session Temporal could not say is `unknown`.
  const reads = await deps.commands.liveMany(page.sessions.map((m) => m.session_id));
  const views = page.sessions.map((m) => listedSessionView(m, reads.get(m.session_id) ?? { status: 'unknown', reason: 'not read' }));
  // Spent is read from the session's whole transcript: only where there is a cap to show it against,
  // so listing many long sessions does not read every one of them (GET …/stats has it for any session).
  const spent = await Promise.all(views.map((v) => (hasCap(v.budget) ? spentBy(deps, v.session_id) : undefined)));
  return { sessions: views.map((v, i) => ({ ...v, ...(spent[i] ? { spent: spent[i] } : {}) })), ...(page.next_cursor ? { next_cursor: page.next_cursor } : {}) };
}

/**
 * What a session has spent, as its budget check counts it: the cost and all tokens of its recorded
 * steps. Left out (undefined) when its messages cannot be read: one session must not fail the list.
 */
async function spentBy(deps: ListDeps, sessionId: string): Promise<{ cost_usd: number; tokens: number } | undefined> {
  try {
    const { usage } = await sessionStats(deps.store as StoreClient, sessionId, { model: deps.defaultModel, catalog: deps.catalog });
    return { cost_usd: usage.cost_usd, tokens: usage.input + usage.output + usage.cache_read + usage.cache_write };
  } catch {
    return undefined;
  }
}

/** A cap set (a null or absent field is none). */
function hasCap(budget: { max_cost_usd?: number | null; max_tokens?: number | null } | undefined): boolean {
  return typeof budget?.max_cost_usd === 'number' || typeof budget?.max_tokens === 'number';
}
