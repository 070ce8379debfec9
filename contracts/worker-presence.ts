import { z } from 'zod';

/**
 * How workers notice each other's death within a second or two, without waiting for Temporal's
 * heartbeat timeout (services/worker/crash-watch/). Each worker answers on a presence subject of its
 * own while its process lives; each activity a worker runs is listed in a key-value bucket with the
 * worker's id and the activity's task token, so a surviving worker can fail it on the dead one's behalf.
 */

/** The JetStream key-value bucket listing the activities running on every worker. */
export const RUNNING_ACTIVITIES_BUCKET = 'strand_running_activities';

/** Worker ids are `[a-z0-9-]` only, so they are safe subject tokens as they are. */
const workerIdSchema = z.string().regex(/^[a-z0-9-]{1,80}$/);

/** The subject a live worker answers on. NATS answers "no responders" at once when its process is gone. */
export function workerPresenceSubject(workerId: string): string {
  return `strand.worker.presence.${workerIdSchema.parse(workerId)}`;
}

/** One running activity, as listed in the bucket (key: a digest of its task token). */
export const runningActivitySchema = z.object({
  worker_id: workerIdSchema,
  /** The activity's task token (base64): what a survivor fails it with. */
  task_token: z.string(),
  workflow_id: z.string(),
  run_id: z.string(),
  activity_id: z.string(),
  activity_type: z.string(),
  attempt: z.number().int().positive(),
});
export type RunningActivity = z.infer<typeof runningActivitySchema>;
