import type { NatsConnection } from 'nats';
import type { CheckpointSummary } from '../../contracts/checkpoints';
import type { AgentEventPublisher } from '../events/publisher';
import { CheckpointStore } from './checkpoint-store';
import { checkpointConfigFromEnv, type CheckpointConfig } from './config';
import { startCheckpointHousekeeping } from './housekeeping';
import { createRevertCheckpoints, type RevertStore } from './revert';
import { ToolCheckpoints } from './tool-checkpoints';

;
;
;

/** Checkpoints as the worker wires them: the tool activity's hook and the store behind the activities. */
export interface CheckpointWiring {
  store: CheckpointStore;
  tools: ToolCheckpoints;
  /** The store functions a revert needs (it moves the active leaf). */
  sessions: RevertStore;
}

function createCheckpointWiring(config: CheckpointConfig, sessions: RevertStore): CheckpointWiring {
  const store = new CheckpointStore(config.dir);
  return { store, tools: new ToolCheckpoints(store, config.snapshot), sessions };
}

/** The activities the session workflow calls for `GET …/checkpoints` and `POST …/revert`. */
export function createCheckpointActivities(wiring: CheckpointWiring | undefined, events: AgentEventPublisher, now?: () => number) {
  const revert = wiring ? createRevertCheckpoints({ checkpoints: wiring.store, store: wiring.sessions, events, ...(now ? { now } : {}) }) : undefined;
  return {
    async listCheckpoints(input: { session_id: string }): Promise<CheckpointSummary[]> {
      if (!wiring) return [];
      return (await wiring.store.list(input.session_id)).map((c) => ({
        entry_id: c.entry_id,
        turn_id: c.turn_id,
        tool: c.tool,
        paths: c.files.map((f) => f.path),
        time: c.time,
        reverted: c.reverted === true,
        ...(c.notes ? { notes: c.notes } : {}),
      }));
    },
    revertCheckpoints: async (input: Parameters<NonNullable<typeof revert>>[0]) => {
      if (!revert) return { files: [], entry_ids: [], refused: 'no_checkpoint' as const };
      return revert(input);
    },
  };
}

/**
 * The worker's checkpoints from the environment (STRAND_CHECKPOINT_*), with their upkeep started:
 * deleted sessions' checkpoints removed, age and size bounds applied (housekeeping.ts).
 */
export function createWorkerCheckpoints(nc: NatsConnection, sessions: RevertStore, log: (message: string) => void): CheckpointWiring {
  const config = checkpointConfigFromEnv();
  const wiring = createCheckpointWiring(config, sessions);
  startCheckpointHousekeeping(nc, wiring.store, config, log);
  return wiring;
}
