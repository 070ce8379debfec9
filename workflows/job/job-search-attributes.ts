import * as wf from '@temporalio/workflow';
import type { SearchAttributePair } from '@temporalio/common';
import type { JobVisibilityActivities } from '../../activities/job-visibility';
import type { JobStatus } from '../../contracts/job-report';
import { searchAttributeKeys as sa } from '../../contracts/search-attributes';

const visibility = wf.proxyActivities<JobVisibilityActivities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 3 } });

/**
 * The job's search attributes (docs/jobs.md, "Finding jobs"): `StrandJobStatus` (`running`, then the
 * report's status), `StrandJobProject`, `StrandJobSchedule`. Set only where the namespace has them
 * registered (asked once, through an activity whose answer the history keeps), whoever started the
 * job and with whatever attributes.
 */
export class JobSearchAttributes {
  private enabled = false;

  async start(project: string, scheduleId: string | undefined): Promise<void> {
    this.enabled = await visibility.jobSearchAttributesRegistered().catch(() => false);
    this.upsert([{ key: sa.jobStatus, value: 'running' }, { key: sa.jobProject, value: project }, ...(scheduleId ? [{ key: sa.jobSchedule, value: scheduleId }] : [])]);
  }

  /** The job's status as it moves: `running`, `needs_human` while it waits for a person, then the report's. */
  finish(status: JobStatus | 'running'): void {
    this.upsert([{ key: sa.jobStatus, value: status }]);
  }

  /** Each upsert is a history event: only what changed. */
  private upsert(pairs: SearchAttributePair[]): void {
    if (!this.enabled) return;
    const current = wf.workflowInfo().typedSearchAttributes;
    const changed = pairs.filter((p) => current.get(p.key) !== p.value);
    if (changed.length > 0) wf.upsertSearchAttributes(changed);
  }
}
