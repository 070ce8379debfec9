import type { StoreClient } from '../../contracts/session-store/client';

/**
 * The slice of the session store the activities use. The worker passes the real NATS client; unit
 * tests pass an in-memory fake that honours the same contract (idempotent append on entry_id).
 */
export type StorePort = Pick<StoreClient, 'get' | 'setMeta' | 'append' | 'getMessage' | 'messages'>;
