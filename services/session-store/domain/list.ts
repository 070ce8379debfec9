import { StoreError, StoreErrorCode } from '../../../contracts/session-store/errors';
import type { StoreReply, ParsedRequest } from '../../../contracts/session-store/functions';
import type { SessionMeta } from '../../../contracts/session-store/schemas';
import { decodeCursor, encodeCursor } from './cursor';
import { clamp, type StoreLimits } from './store';

type Order = 'updated_desc' | 'created_asc' | 'created_desc';

function keyOf(meta: SessionMeta, order: Order): number {
  return order === 'updated_desc' ? meta.updated_at : meta.created_at;
}

/** Sort by the order's timestamp, ties broken by id, so every session has one fixed place. */
function compare(order: Order) {
  const desc = order !== 'created_asc';
  return (a: SessionMeta, b: SessionMeta) => {
    const d = keyOf(a, order) - keyOf(b, order);
    if (d !== 0) return desc ? -d : d;
    return a.session_id < b.session_id ? (desc ? 1 : -1) : a.session_id > b.session_id ? (desc ? -1 : 1) : 0;
  };
}

function matchesMetadata(meta: SessionMeta, filter: Record<string, unknown> | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([k, v]) => JSON.stringify(meta.metadata?.[k]) === JSON.stringify(v));
}

/**
 * One page of sessions. The cursor holds the last item's (timestamp, id) and its order, so the next
 * page starts strictly after it even when timestamps tie or sessions are added meanwhile.
 */
export function listSessions(all: SessionMeta[], req: ParsedRequest<'list'>, limits: StoreLimits): StoreReply<'list'> {
  const order: Order = req.order ?? 'updated_desc';
  const cmp = compare(order);
  let after: SessionMeta | undefined;
  if (req.cursor !== undefined) {
    const c = decodeCursor(req.cursor);
    if (c.k !== 'list' || typeof c.ts !== 'number' || typeof c.id !== 'string') throw new StoreError(StoreErrorCode.INVALID_CURSOR, 'cursor is not a list cursor');
    if (c.o !== order) throw new StoreError(StoreErrorCode.INVALID_CURSOR, `cursor was issued for order ${String(c.o)}, not ${order}`);
    after = { session_id: c.id, created_at: c.ts, updated_at: c.ts } as SessionMeta;
  }
  const limit = clamp(req.limit, limits);
  const matching = all
    .filter((m) => (req.status === undefined || m.status === req.status) && matchesMetadata(m, req.metadata))
    .filter((m) => !after || cmp(m, after) > 0)
    .sort(cmp);
  const page = matching.slice(0, limit);
  const last = page[page.length - 1];
  return {
    sessions: page,
    ...(matching.length > limit && last ? { next_cursor: encodeCursor({ k: 'list', o: order, ts: keyOf(last, order), id: last.session_id }) } : {}),
  };
}
