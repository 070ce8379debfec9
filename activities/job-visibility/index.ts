import type { NativeConnection } from '@temporalio/worker';
import { JOB_SEARCH_ATTRIBUTE_NAMES } from '../../contracts/search-attributes';

export interface JobVisibilityDeps {
  /** The worker's connection: its operator service lists the namespace's search attributes. */
  connection: Pick<NativeConnection, 'operatorService'>;
  namespace: string;
}

/**
 * Whether the namespace has the job's search attributes registered (docs/jobs.md, "Finding jobs").
 * The job workflow asks once and upserts them only then: an upsert of an attribute the server does
 * not know fails the workflow task again and again, and a job must run on any server (the
 * time-skipping test server lists none). Asked, not cached: a server set up later is seen by the next job.
 */
export function createJobVisibilityActivities(deps: JobVisibilityDeps) {
  return {
    async jobSearchAttributesRegistered(): Promise<boolean> {
      try {
        const res = await deps.connection.operatorService.listSearchAttributes({ namespace: deps.namespace });
        const custom = res.customAttributes ?? {};
        return JOB_SEARCH_ATTRIBUTE_NAMES.every((name) => name in custom);
      } catch {
        // A server without the operator service (the time-skipping test server): no attributes.
        return false;
      }
    },
  };
}
export type JobVisibilityActivities = ReturnType<typeof createJobVisibilityActivities>;
