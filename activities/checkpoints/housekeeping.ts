import type { NatsConnection } from 'nats';
import { StoreClient } from '../../contracts/session-store/client';
import { bindStoreEvents } from '../../contracts/session-store/subscription';
import type { CheckpointStore } from './checkpoint-store';
import type { CheckpointConfig } from './config';
import { pruneCheckpoints, type PruneReport } from './prune';

/**
 * The worker's upkeep of checkpoints: a session's checkpoints go when the store announces its
 * deletion, and a prune (at start, then every `pruneEveryMs`) drops what is past the age and size
 * bounds and what belongs to sessions the store no longer has (a deletion announced while no worker
 * listened).
 */
export function startCheckpointHousekeeping(
  nc: NatsConnection,
  store: CheckpointStore,
  config: CheckpointConfig,
  log: (message: string) => void = () => undefined,
): { stop(): void; prune(): Promise<PruneReport> } {
  const sessions = new StoreClient(nc);
  const binding = bindStoreEvents(nc, 'deleted', {}, (e) => store.deleteSession(e.session_id), { onError: (err) => log(`checkpoints of a deleted session: ${String(err)}`) });
  const prune = () =>
    pruneCheckpoints(store, config.prune, async (id) => {
      try {
        return (await sessions.get({ session_id: id })) !== null;
      } catch {
        return true; // the store did not answer: keep everything this time
      }
    });
  const run = () => void prune().catch((err: unknown) => log(`checkpoint prune failed: ${String(err)}`));
  const first = setTimeout(run, 5_000);
  const timer = setInterval(run, config.pruneEveryMs);
  first.unref();
  timer.unref();
  return {
    stop() {
      clearTimeout(first);
      clearInterval(timer);
      binding.unbind();
    },
    prune,
  };
}
